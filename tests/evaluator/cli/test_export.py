"""`evaluator export` over a folder of several kinds: the ranking logs are exported, the
others skipped with a count, and each log's suite is found as `evaluator score` finds it
(a shipped suite, or a sealed run's plan), so --suite is optional."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from taurec.catalog.errors import DataError
from taurec.evaluator.cli.main import app
from taurec.evaluator.logs import Resolver
from tests.support.report_runs import ranking_run

runner = CliRunner()


@pytest.fixture(scope="module")
def ranking(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sealed run of the popularity ranker on ranking:builtin (4 tasks x 2 trials)."""
    return ranking_run(tmp_path_factory.mktemp("ranking") / "logs")


@pytest.fixture
def mixed(ranking: Path, logs, tmp_path: Path) -> Path:
    """The ranking run beside three recommendation logs, in one folder."""
    logs.run({"ta": 1, "tb": 1, "tc": 0}, trials=1)
    folder = tmp_path / "mixed"
    shutil.copytree(ranking, folder / "ranking")
    shutil.copytree(logs.out, folder / "recommendation")
    return folder


def _export(*args: str):
    return runner.invoke(app, ["export", *args])


def test_grpo_skips_other_kinds_with_a_count(mixed: Path) -> None:
    result = _export(str(mixed), "--format", "grpo")
    assert result.exit_code == 0, result.output
    assert "skipped 3 recommendation logs: grpo exports ranking episodes" in result.stderr
    groups = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert len(groups) == 4 and all(len(g["rollouts"]) == 2 for g in groups)


def test_the_readme_line_with_suite_works_on_a_mixed_folder(mixed: Path) -> None:
    result = _export(str(mixed), "--format", "grpo", "--suite", "ranking:builtin")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 4


def test_ppr_says_what_it_is_made_of(mixed: Path) -> None:
    result = _export(str(mixed), "--format", "ppr")
    assert result.exit_code == 0, result.output
    assert "pairs mined from ranking episodes" in result.stderr


def test_a_folder_with_no_ranking_log_is_one_line_and_exit_2(logs) -> None:
    logs.run({"ta": 1}, trials=1)
    result = _export(str(logs.out), "--format", "grpo")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines()[-1] == (
        f"error: no ranking episodes under {logs.out} to export"
    )


def test_export_takes_the_label_option(mixed: Path) -> None:
    result = _export(str(mixed), "--format", "grpo", "--label", "agent*")
    assert result.exit_code == 2 and "no ranking episodes" in result.stderr
    result = _export(str(mixed), "--format", "grpo", "--label", "pop*")
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 4
    assert "skipped" not in result.stderr  # the recommendation logs are another label's
    wrong = _export(str(mixed), "--format", "grpo", "--label", "gpt")
    assert wrong.exit_code == 2
    assert "--label 'gpt' matches no label; labels here: agentA, popularity" in wrong.stderr


def test_a_shipped_suite_named_in_a_header_is_loaded_without_a_plan() -> None:
    assert Resolver().context("ranking:builtin").suite.kind == "ranking"
    assert Resolver().context("stream:builtin").suite.kind == "stream"


def test_a_suite_folder_named_in_a_header_still_needs_a_plan_or_suite(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="neither the built-in suite"):
        Resolver().context(str(tmp_path))
    with pytest.raises(DataError, match="neither the built-in suite"):
        Resolver().context("nosuchkind:builtin")
