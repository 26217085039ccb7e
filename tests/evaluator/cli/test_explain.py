"""`evaluator explain`: verdicts with their evidence, then the conversation by log seq."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from taurec.catalog.io import CatalogMeta, write_catalog_file
from taurec.evaluator.cli.main import app
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import SuiteManifest, write_suite_dir

from ..conftest import ITEMS, LogWriter

runner = CliRunner()


def _explain(*args: str):
    return runner.invoke(app, ["explain", *args], env={"COLUMNS": "200"})


def test_a_folder_explains_every_log_in_it(logs):
    logs.run({"ta": 1, "tb": 0}, trials=1)
    result = _explain(str(logs.out), "--suite", logs.spec)
    assert result.exit_code == 0, result.output
    assert "task ta" in result.output and "task tb" in result.output
    assert result.output.count("conversation") == 2


def test_the_conversation_is_numbered_by_log_seq(logs):
    path = logs.episode("ta", 0, item="c1")
    out = _explain(str(path), "--suite", logs.spec).output
    assert "seq   1 user  Hi" in out
    assert "seq   2 agent What do you like?" in out
    assert "seq   3 tool  recommend" in out and "seq   4   → result" in out
    assert "seq   5 end   recommended c1" in out


def test_a_policy_verdict_cites_its_evidence_by_seq(logs):
    path = logs.episode("ta", 0, item="c1")
    out = _explain(str(path), "--suite", logs.spec).output
    assert "seq 3" in out  # the recommend call decides recommend_tool


def test_a_date_is_printed_in_iso_form(tmp_path: Path):
    folder = tmp_path / "suite"
    folder.mkdir()
    write_catalog_file(folder / "catalog.json", CatalogMeta(name="tiny"), ITEMS)
    task = RecommendationTask.model_validate(
        {
            "id": "ta",
            "persona": "You like new films.",
            "constraints": [
                {"field": "release_date", "op": ">=", "value": "2020-01-01", "reveal": "volunteer"}
            ],
            "policy_flags": ["recommend_tool"],
            "user": {"services": ["Netflix"]},
        }
    )
    manifest = SuiteManifest(format_version=1, id="tiny", catalog="catalog.json", description="")
    write_suite_dir(folder, manifest, [task])
    writer = LogWriter(folder, tmp_path / "logs")
    path = writer.episode("ta", 0, item="c1")
    out = _explain(str(path), "--suite", str(folder)).output
    assert "2018-03-01" in out and "datetime.date" not in out


def test_a_file_that_is_not_a_log_is_one_line_and_exit_2(tmp_path: Path):
    readme = tmp_path / "README.md"
    readme.write_text("# hi\n")
    result = _explain(str(readme))
    assert result.exit_code == 2 and "not an episode log" in result.output
    assert result.output.strip().count("\n") == 0


def test_a_folder_without_logs_says_what_it_expects(tmp_path: Path):
    result = _explain(str(tmp_path))
    assert result.exit_code == 2 and "no episode logs (*.jsonl)" in result.output
