"""`taurec tasks profiles`: writes the suite's profiles.jsonl through litellm (mocked),
shows progress, and a re-run calls nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.ranking import write_ranking_suite
from typer.testing import CliRunner

from taurec.clients.cli.tasks import app
from taurec.server.ranking.profiles import PROFILES_FILE, read_entries

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm

runner = CliRunner(env={"COLUMNS": "200"})
MODEL = "openai/gpt-4o-mini"


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    original = litellm.completion

    def completion(**kwargs: Any) -> Any:
        seen.append(kwargs)
        return original(**kwargs, mock_response=f"Profile {len(seen)}.")

    monkeypatch.setattr(litellm, "completion", completion)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return seen


def test_profiles_are_written_then_cached(tmp_path: Path, calls: list[dict[str, Any]]):
    folder = write_ranking_suite(tmp_path / "suite", n=3)
    first = runner.invoke(app, ["profiles", str(folder), "--model", MODEL])
    assert first.exit_code == 0, first.output
    assert "3/3 tasks" in first.stdout and "3 profiles written, 0 already cached" in first.stdout
    assert len(calls) == 3 and {c["model"] for c in calls} == {MODEL}
    assert [e.profile for e in read_entries(folder / PROFILES_FILE)] == [
        "Profile 1.",
        "Profile 2.",
        "Profile 3.",
    ]
    again = runner.invoke(app, ["profiles", str(folder), "--model", MODEL])
    assert again.exit_code == 0 and "0 profiles written, 3 already cached" in again.stdout
    assert len(calls) == 3


def test_a_suite_of_another_kind_is_refused(tmp_path: Path, calls: list[dict[str, Any]]):
    result = runner.invoke(app, ["profiles", "builtin", "--model", MODEL])
    assert result.exit_code == 2 and "expected a ranking suite" in result.stderr
    assert calls == []
