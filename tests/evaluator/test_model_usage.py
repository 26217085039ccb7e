"""Tokens and cost per caller, from a log's model_call events, else from its end record."""

from __future__ import annotations

from typing import Any

import pytest

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.model_usage import episode_usage, note_model_usage, usage_fields, usage_rows


def call(caller: str, tokens: int, cost: float | None = None) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": tokens, "completion_tokens": 1}
    if cost is not None:
        usage["cost_usd"] = cost
    return {"type": "model_call", "caller": caller, "model": "m", "input": "0" * 64, "usage": usage}


END = {"type": "end", "usage": {"prompt_tokens": 999, "completion_tokens": 9, "cost_usd": 0.5}}


def test_the_calls_are_summed_per_caller_and_win_over_the_end_record() -> None:
    note = {"type": "model_call", "caller": "agent", "model": "m", "detail": "over the cap"}
    usage = episode_usage([call("agent", 10, 0.01), call("agent", 20), call("user", 5), note, END])
    assert usage["agent"] == {
        "calls": 2,
        "prompt_tokens": 30,
        "completion_tokens": 2,
        "cost_usd": 0.01,
        "source": "model_call events",
    }
    assert usage["user"]["calls"] == 1 and usage["user"]["cost_usd"] is None


def test_without_the_agents_calls_the_end_record_counts() -> None:
    usage = episode_usage([call("user", 5), END])
    assert usage["agent"] == {
        "calls": None,
        "prompt_tokens": 999,
        "completion_tokens": 9,
        "cost_usd": 0.5,
        "source": "end records",
    }
    assert episode_usage([{"type": "end"}]) == {}


def _score(events: list[dict[str, Any]]) -> EpisodeScore:
    score = EpisodeScore(
        path="", label="a", task_id="t", trial=0, end_reason="x", outcome="none", item_id=None
    )
    note_model_usage(score, events)
    return score


def test_a_label_sums_its_episodes_and_says_where_the_numbers_came_from() -> None:
    scores = [_score([call("agent", 10, 0.01), END]), _score([END])]
    assert scores[0].prompt_tokens == 10 and scores[0].cost_usd == 0.01
    total = usage_fields(scores)["model_usage"]["agent"]
    assert total["calls"] == 1 and total["prompt_tokens"] == 1009 and total["episodes"] == 2
    assert total["cost_usd"] == pytest.approx(0.51)
    assert total["source"] == "end records and model_call events"
    rows = dict(usage_rows({"model_usage": {"agent": total}}))
    assert rows["agent tokens in / out"] == "1,009 / 10 (reported by the agent)"
    assert rows["agent cost (USD)"] == "0.5100 (reported by the agent)"


def test_what_the_agent_reports_of_itself_is_shown_as_reported_and_the_servers_as_measured() -> (
    None
):
    """A contestant reporting cost 0 for 50 gpt-4o calls: its word, and said to be."""
    scores = [_score([*(call("agent", 1000, 0.0) for _ in range(50)), call("user", 5, 0.001), END])]
    usage = usage_fields(scores)["model_usage"]
    assert usage["agent"]["reported_by"] == "agent" and usage["user"]["reported_by"] == "server"
    rows = dict(usage_rows({"model_usage": usage}))
    assert rows["agent cost (USD)"] == "0.0000 (reported by the agent)"
    assert rows["agent model calls"] == "50 (model_call events, reported by the agent)"
    assert rows["simulated user cost (USD)"] == "0.0010"
