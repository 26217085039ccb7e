"""`--agent llm --model mock`: the LLM path through litellm's mock replies, with no key."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from taurec.clients.agents.llm_mock import mock_reply
from taurec.clients.cli.main import app
from taurec.tasks.trajectory.reader import read_log


def _tool_message(content: dict) -> dict:
    return {
        "role": "tool",
        "tool_call_id": "c",
        "name": "search_catalog",
        "content": json.dumps(content),
    }


def _called(reply: dict) -> tuple[str, dict]:
    (call,) = reply["mock_tool_calls"]
    return call["function"]["name"], json.loads(call["function"]["arguments"])


def test_the_mock_first_searches_for_the_users_opening_words() -> None:
    messages = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "A Western please"},
    ]
    assert _called(mock_reply(messages)) == (
        "search_catalog",
        {"query": "A Western please", "limit": 5},
    )


def test_the_mock_then_recommends_the_first_hit() -> None:
    messages = [
        {"role": "user", "content": "x"},
        _tool_message({"hits": [{"id": "i9"}, {"id": "i2"}]}),
    ]
    assert _called(mock_reply(messages)) == ("recommend", {"item_id": "i9"})


def test_the_mock_abstains_when_the_search_found_nothing() -> None:
    messages = [{"role": "user", "content": "x"}, _tool_message({"hits": []})]
    assert _called(mock_reply(messages)) == ("recommend", {"item_id": None})


def test_a_mock_run_needs_no_key_and_commits_every_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "logs"
    args = ["run", "--agent", "llm", "--model", "mock", "--tasks", "t001,t004", "--trials", "1"]
    result = CliRunner().invoke(app, [*args, "--log-dir", str(out)])
    assert result.exit_code == 0, result.output
    assert "agent: mock@t0" in result.stdout
    logs = list(out.rglob("*.jsonl"))
    assert len(logs) == 2
    for path in logs:
        events = read_log(path).events
        assert [e["name"] for e in events if e["type"] == "tool_call"] == [
            "search_catalog",
            "recommend",
        ]
        assert events[-1]["type"] == "end" and events[-1]["reason"] == "recommended"


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suite: str, tasks: str) -> list:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["run", "--suite", suite, "--agent", "llm", "--model", "mock", "--tasks", tasks]
    result = CliRunner().invoke(app, [*args, "--trials", "1", "--log-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return [read_log(path) for path in sorted(tmp_path.rglob("trial*.jsonl"))]


def test_on_a_ranking_the_mock_reads_the_profile_then_submits_the_candidates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for parsed in _run(tmp_path, monkeypatch, "ranking:builtin", "rank_000,rank_001"):
        calls = [e["name"] for e in parsed.events if e["type"] == "tool_call"]
        assert calls == ["get_user_profile", "submit_ranking"]
        end = parsed.events[-1]
        assert end["reason"] == "recommended"


def test_on_a_pair_the_mock_answers_the_first_of_the_two() -> None:
    assert "\\boxed{A}" in mock_reply([{"role": "user", "content": "A or B?"}], [])["mock_response"]
