"""`taurec run` with the LLM stream agents end to end, every call through litellm
(`--model mock` answers with litellm's mock_response): a planning run with stated
confidences on the built-in suite and on a suite built from BIEL's files, scored with
the planning curve and the calibration figures; and the options' mistakes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from support.biel_files import BielRelease, write_biel
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.evaluator.cli.main import app as evaluator

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

cli = CliRunner()
TASK = "stream-variable-category-regret-000"
PLANNING = ("--planning", "greedy", "--confidence")


def run_and_score(suite: str, out: Path, *args: str) -> dict[str, Any]:
    run = ["run", "--suite", suite, "--model", "mock", "--trials", "1", "--out", str(out)]
    result = cli.invoke(app, [*run, *args])
    assert result.exit_code == 0, result.output
    scored = cli.invoke(evaluator, ["score", str(out), "--json"])
    assert scored.exit_code == 0, scored.output
    (group,) = orjson.loads(scored.stdout)["groups"]
    assert group["kind"] == "stream" and group["incomplete"] == 0
    return dict(group)


def test_a_planning_run_on_the_builtin_suite_reports_its_curve_and_calibration(
    tmp_path: Path,
) -> None:
    args = ("--agent", "llm", *PLANNING, "--tasks", TASK)
    group = run_and_score("stream:builtin", tmp_path / "logs", *args)
    # planning episodes 1, 5 and 10 ask all 10 questions, with an interim pick after each
    assert [p["questions"] for p in group["planning"]] == list(range(1, 11))
    assert {p["n"] for p in group["planning"]} == {3}
    calibration = group["calibration"]
    assert calibration["picks"] == 3 * 11 + 7  # interim and final picks, 7 other finals
    assert calibration["favorite"]["stated"] == pytest.approx(0.3)
    assert calibration["within_10"]["n"] == 40 and "predicted_regret" in calibration


@pytest.fixture(scope="module")
def biel_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    release: BielRelease = write_biel(tmp_path_factory.mktemp("biel"))
    f, out = release.files, release.root / "suite"
    result = cli.invoke(
        app,
        [
            *("tasks", "generate-streams", "--out", str(out), "--n", "2", "--episodes", "2"),
            *("--biel-products", str(f.products), "--biel-personas", str(f.personas)),
            *("--biel-scores", str(f.scores), "--biel-categories", str(f.links)),
        ],
    )
    assert result.exit_code == 0, result.output
    return out


def test_the_llm_agent_plans_on_a_suite_from_biels_files(biel_suite: Path, tmp_path: Path) -> None:
    args = ("--agent", "llm", *PLANNING, "--context", "summary")
    group = run_and_score(str(biel_suite), tmp_path / "logs", *args)
    assert group["streams"] == 6 and group["episodes"] == 12
    assert group["planning"] and group["planning"][0]["questions"] == 1
    assert group["calibration"]["picks"] > 12


def test_the_oracle_plays_a_suite_from_biels_files(biel_suite: Path, tmp_path: Path) -> None:
    group = run_and_score(str(biel_suite), tmp_path / "logs", "--agent", "oracle")
    assert group["label"] == "oracle@mock" and group["avg_questions"] == 0
    assert 0 <= group["avg_regret"] <= 100


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "oracle", "--model", ""], "--agent oracle needs --model"),
        (["--agent", "ceiling", "--model", "mock"], "--agent oracle or llm only"),
        (["--agent", "llm", "--model", "mock", "--planning-interval", "3"], "with --planning"),
        (["--agent", "learner", "--planning", "greedy"], "does not apply to --agent learner"),
    ],
)
def test_stream_agent_option_mistakes_are_one_line_with_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    run = ["run", "--suite", "stream:builtin", "--tasks", TASK, "--out", str(tmp_path)]
    result = cli.invoke(app, [*run, *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.stderr
