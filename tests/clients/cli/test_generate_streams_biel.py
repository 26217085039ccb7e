"""`taurec tasks generate-streams --biel-*`: a stream suite from BIEL's released files,
played by the reference agents and scored; usage mistakes and bad data are one line with
exit code 2 (fixtures: tests/support/biel_files.py)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from support.biel_files import BielRelease, write_biel
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.evaluator.cli.main import app as evaluator
from taurec.tasks.stream.task import UtilitySource
from taurec.tasks.suite import load_suite

cli = CliRunner()


def biel_options(release: BielRelease) -> list[str]:
    f = release.files
    return [
        *("--biel-products", str(f.products), "--biel-personas", str(f.personas)),
        *("--biel-scores", str(f.scores), "--biel-categories", str(f.links)),
    ]


def generate(out: Path, *options: str):
    args = ["tasks", "generate-streams", "--out", str(out), "--n", "2", "--episodes", "2"]
    return cli.invoke(app, [*args, *options], env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> BielRelease:
    return write_biel(tmp_path_factory.mktemp("biel"))


@pytest.fixture(scope="module")
def suite(release: BielRelease) -> Path:
    out = release.root / "suite"
    result = generate(out, *biel_options(release))
    assert result.exit_code == 0, result.output
    return out


def test_the_suite_holds_biels_utilities_and_the_command_says_what_it_read(
    release: BielRelease,
) -> None:
    out = release.root / "said"
    result = generate(out, *biel_options(release), "--settings", "variable_category")
    assert result.exit_code == 0, result.output
    summary = result.stdout.splitlines()[0]
    assert "read 59 products, 5 categories (4 kept, 1 pruned under 15 products)" in summary
    assert "3 personas and 12 scored (persona, category) pairs" in summary
    assert "skipped" in summary
    loaded = load_suite(str(out))
    assert loaded.kind == "stream" and len(loaded.tasks) == 2
    assert {t.utility_source for t in loaded.tasks} == {UtilitySource.LLM}


@pytest.mark.parametrize("agent", ["random", "popularity", "learner"])
def test_a_biel_suite_is_played_and_scored(suite: Path, tmp_path: Path, agent: str) -> None:
    logs = tmp_path / agent
    run = ["run", "--suite", str(suite), "--agent", agent, "--trials", "1", "--out", str(logs)]
    result = cli.invoke(app, run)
    assert result.exit_code == 0, result.output
    scored = cli.invoke(evaluator, ["score", str(logs), "--json"])
    assert scored.exit_code == 0, scored.output
    (group,) = orjson.loads(scored.stdout)["groups"]
    assert group["kind"] == "stream" and group["label"] == agent
    assert group["streams"] == 6 and group["episodes"] == 12 and group["incomplete"] == 0
    assert 0 <= group["avg_regret"] <= 100


def test_a_partial_set_of_biel_options_is_a_usage_error(
    release: BielRelease, tmp_path: Path
) -> None:
    result = generate(tmp_path / "out", *biel_options(release)[:4])
    assert result.exit_code == 2
    assert "missing --biel-scores, --biel-categories" in result.output


@pytest.mark.parametrize(
    "other",
    [["--products", "meta.jsonl"], ["--personas", "12"], ["--catalog", "x.json"], ["--cache", "c"]],
)
def test_biel_options_do_not_mix_with_another_item_or_persona_source(
    release: BielRelease, tmp_path: Path, other: list[str]
) -> None:
    result = generate(tmp_path / "out", *biel_options(release), *other)
    assert result.exit_code == 2 and "--biel-* options" in result.output


def test_bad_biel_data_is_one_line_with_exit_code_2(release: BielRelease, tmp_path: Path) -> None:
    options = biel_options(release)
    options[options.index("--biel-scores") + 1] = str(tmp_path / "persona_scores.parquet")
    result = generate(tmp_path / "out", *options)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: {tmp_path / 'persona_scores.parquet'}: does not exist; expected BIEL's "
        "persona_scores.parquet (columns persona_index, category_id, product_id, score)"
    ]
    assert not (tmp_path / "out").exists()
