"""The stream agents on the built-in stream suite: the ceiling's regret is 0 everywhere,
random and popularity do not learn (slope CI contains 0), and the learning reference
agent's regret falls (slope CI below 0) with one customer throughout (variable_category).

Streams are played in process (the same rules and results as over MCP, see
LocalStreamPort), one trial each; one test plays them through the MCP tools."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.registry import make_agent
from taurec.clients.agents.stream.baselines import (
    CeilingStreamPolicy,
    PopularityStreamPolicy,
    RandomStreamPolicy,
    popularity_key,
)
from taurec.clients.agents.stream.learner import BayesianStreamLearner, reading
from taurec.clients.agents.stream.play import LocalStreamPort, StreamPolicy, play_stream
from taurec.clients.runner import run_agent
from taurec.evaluator.stream.metrics import score_choice, stream_summary
from taurec.tasks.stream.session import StreamSession
from taurec.tasks.stream.task import StreamTask
from taurec.tasks.suite import load_suite

SUITE = "stream:builtin"
Make = Callable[[StreamTask], StreamPolicy]


@cache
def tasks() -> tuple[StreamTask, ...]:
    return tuple(load_suite(SUITE).tasks)


def play(make: Make) -> dict[str, dict[str, Any]]:
    """Per setting: the summary of every built-in stream played by the policy."""
    by_setting: dict[str, list[Any]] = {}
    for task in tasks():
        session = StreamSession(task, seed=0)
        view = session.view().model_dump(mode="json")
        asyncio.run(play_stream(LocalStreamPort(session), view, make(task)))
        outcomes = [
            score_choice(n + 1, e.utilities, session.chosen[n], 0)
            for n, e in enumerate(task.episodes)
        ]
        by_setting.setdefault(task.setting.value, []).append(outcomes)
    return {k: stream_summary(v) for k, v in by_setting.items()}


def test_the_ceilings_regret_is_0_in_every_episode() -> None:
    for report in play(lambda t: CeilingStreamPolicy(t)).values():
        assert [p["regret"] for p in report["curve"]] == [0.0] * 10


@pytest.mark.parametrize(
    "make",
    [lambda t: RandomStreamPolicy(0, t.id, 0), lambda t: PopularityStreamPolicy()],
    ids=["random", "popularity"],
)
def test_random_and_popularity_show_flat_curves(make: Make) -> None:
    for setting, report in play(make).items():
        low, high = report["slope_ci"]
        assert low <= 0 <= high, (setting, report["slope_ci"])


def test_the_learning_agents_regret_falls_with_one_customer() -> None:
    report = play(lambda t: BayesianStreamLearner(0, t.id, 0))["variable_category"]
    assert report["slope_ci"][1] < 0, report["slope_ci"]
    assert report["improvement"] < 0


def test_popularity_picks_the_highest_rated_item_not_the_cheapest() -> None:
    items = [
        {"id": "cheap", "rating": 5.0, "price": 1.0},
        {"id": "loved", "rating": 9.0, "price": 90.0},
        {"id": "tie", "rating": 9.0, "price": 95.0},
    ]
    assert min(items, key=popularity_key)["id"] == "loved"


@pytest.mark.parametrize(
    ("feedback", "kind"),
    [
        ("Chosen score: 62.5, Best possible: 80, Regret: 17.5", "regret"),
        ("4 stars out of 5", "stars"),
        ("Honestly, this isn't for me.", "persona"),
    ],
)
def test_the_learner_reads_each_kind_of_feedback(feedback: str, kind: str) -> None:
    seen = reading(feedback)
    assert seen is not None and seen[1] == kind


def test_the_learner_reads_nothing_from_no_feedback() -> None:
    assert reading(None) is None


def test_stream_agents_play_over_mcp_through_the_runner(tmp_path: Path) -> None:
    agent = make_agent("ceiling", AgentSettings(suite=SUITE), "stream")
    some = [t.id for t in tasks()[:2]]
    report = run_agent(agent, suite=SUITE, tasks=some, out=tmp_path, concurrency=2)
    assert [r.end_reason for r in report.results] == ["recommended", "recommended"]
    for result in report.results:
        assert result.score is not None and result.score.problems == []
        assert result.score.metrics["regret@10"] == 0.0
