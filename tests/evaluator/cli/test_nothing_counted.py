"""When not one log can be counted, `evaluator score` and `evaluator episodes` say why
on stderr (the same findings) and end with one error line: exit 1 when the run's files
are damaged or cannot be authenticated, 2 when the input cannot be scored otherwise."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.tasks.trajectory.signing import KEY_ENV
from tests.support.report_runs import ranking_run

runner = CliRunner()


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ranking_run(tmp_path_factory.mktemp("sealed") / "logs")


@pytest.fixture
def other_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A log key other than the one the run's registers were signed with."""
    monkeypatch.setenv(KEY_ENV, "ab" * 32)


def test_episodes_explains_an_unverifiable_register_as_score_does(sealed, other_key) -> None:
    score = runner.invoke(app, ["score", str(sealed)])
    episodes = runner.invoke(app, ["episodes", str(sealed), "--json"])
    assert "run register unusable" in score.stderr and "HMAC does not match" in score.stderr
    assert episodes.stderr == score.stderr
    assert episodes.exit_code == score.exit_code == 1 and episodes.stdout == ""
    assert score.stderr.splitlines()[-1].startswith(
        "error: not one log could be counted; the first reason: "
    )


def test_score_json_still_prints_its_document_when_nothing_counts(sealed, other_key) -> None:
    result = runner.invoke(app, ["score", str(sealed), "--json"])
    doc = orjson.loads(result.stdout)
    assert result.exit_code == 1 and doc["groups"] == [] and len(doc["excluded"]) == 8


def test_logs_whose_suite_cannot_be_loaded_exit_2_with_one_reason(logs) -> None:
    logs.run({"ta": 1, "tb": 1}, trials=1)  # headers name a suite folder; no --suite
    for command in ("score", "episodes"):
        result = runner.invoke(app, [command, str(logs.out)])
        assert result.exit_code == 2 and result.stdout == "", command
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith("error: not one log could be counted; the first reason: ")
        assert "give --suite" in last


def test_one_counted_log_is_enough(logs) -> None:
    logs.run({"ta": 1, "tb": 0}, trials=1)
    result = runner.invoke(app, ["score", str(logs.out), "--suite", logs.spec])
    assert result.exit_code == 0 and "not one log" not in result.stderr
