"""One reward on every path: the same scripted behaviour played over MCP, in the Python
environment, and scored from its log by the evaluator and by `evaluator export`, earns the
same reward. Unknown tools and ill-formed arguments are refused uncounted everywhere (an
MCP server refuses them before the episode sees them); a call that reaches a tool counts
against the budget, and earns the bonus only when the tool answers it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support.ranking import write_ranking_suite

from taurec.evaluator.cli.export import export_lines, ranking_episodes
from taurec.evaluator.files import find_logs
from taurec.evaluator.logs import Resolver
from taurec.server.app import build_server
from taurec.server.ranking.env import RankingEnv
from taurec.server.settings import ServerSettings
from taurec.tasks.ranking.metrics import ndcg_at
from taurec.tasks.ranking.rules import MAX_RANKING_IDS, MAX_TITLE
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.suite import load_suite

Call = tuple[str, dict[str, Any]]


def _first(task: RankingTask) -> list[str]:
    return [task.positive, *[c for c in task.candidates if c != task.positive][:9]]


def _second(task: RankingTask) -> list[str]:
    rest = [c for c in task.candidates if c != task.positive]
    return [rest[0], task.positive, *rest[1:9]]


PROFILE: Call = ("get_user_profile", {})
#: name -> (the calls, the reward the paper's rules give)
BEHAVIOURS: dict[str, tuple[Callable[[RankingTask], list[Call]], float]] = {
    "a tool, then the positive first": (
        lambda t: [PROFILE, ("submit_ranking", {"ranking": _first(t)})],
        1.1,
    ),
    "no tool, the positive first": (lambda t: [("submit_ranking", {"ranking": _first(t)})], 1.0),
    "an unknown tool is not a tool call": (
        lambda t: [("search", {"query": "x"}), ("submit_ranking", {"ranking": _first(t)})],
        1.0,
    ),
    "a call missing its argument is not a tool call": (
        lambda t: [("item_info_search", {}), ("submit_ranking", {"ranking": _first(t)})],
        1.0,
    ),
    "a blank title is not a tool call": (
        lambda t: [
            ("item_info_search", {"item_name": "   "}),
            ("submit_ranking", {"ranking": _first(t)}),
        ],
        1.0,
    ),
    "an over-long title is not a tool call": (
        lambda t: [
            ("get_similar_items", {"item_title": "x" * (MAX_TITLE + 1)}),
            ("submit_ranking", {"ranking": _first(t)}),
        ],
        1.0,
    ),
    "a ranking of too many ids is refused, then the positive first": (
        lambda t: [
            ("submit_ranking", {"ranking": t.candidates[:1] * (MAX_RANKING_IDS + 1)}),
            ("submit_ranking", {"ranking": _first(t)}),
        ],
        1.0,
    ),
    "the ranking as a JSON-encoded string": (
        lambda t: [PROFILE, ("submit_ranking", {"ranking": json.dumps(_first(t))})],
        1.1,
    ),
    "an unknown title earns no bonus": (
        lambda t: [
            ("item_info_search", {"item_name": "zzqx no such title"}),
            ("submit_ranking", {"ranking": _first(t)}),
        ],
        1.0,
    ),
    "eleven unknown titles still spend the budget": (
        lambda t: [("item_info_search", {"item_name": "zzqx no such title"})] * 11,
        -1.0,
    ),
    "eleven tool calls": (lambda t: [PROFILE] * 11, -1.0),
    "a refused submission, then the positive second": (
        lambda t: [
            ("submit_ranking", {"ranking": list(range(1, 11))}),
            ("submit_ranking", {"ranking": _second(t)}),
        ],
        ndcg_at(2, 10),
    ),
    "nine ids": (lambda t: [PROFILE, ("submit_ranking", {"ranking": _first(t)[:9]})], -1.0),
    "a duplicate id": (
        lambda t: [("submit_ranking", {"ranking": [t.positive] * 2 + _first(t)[2:]})],
        -1.0,
    ),
    "the positive left out": (
        lambda t: [
            ("submit_ranking", {"ranking": [c for c in t.candidates if c != t.positive][:10]})
        ],
        -0.5,
    ),
}


def _env_reward(env: RankingEnv, task: RankingTask, calls: list[Call]) -> float | None:
    env.reset(task)
    for name, arguments in calls:
        step = env.step({"name": name, "arguments": arguments})
        if step.done:
            return step.reward
    return None


async def _play_over_mcp(server: Any, task: RankingTask, trial: int, calls: list[Call]) -> None:
    async with Client(server) as client:
        started = await client.call_tool("start_episode", {"task_id": task.id, "trial": trial})
        episode_id = started.structured_content["episode_id"]
        for name, arguments in calls:
            try:
                await client.call_tool(name, {"episode_id": episode_id, **arguments})
            except Exception:  # an unknown tool may be a protocol error: refused, as intended
                continue


async def test_every_path_gives_the_same_reward(tmp_path: Path):
    suite_dir = str(write_ranking_suite(tmp_path / "suite", n=1))
    task = load_suite(suite_dir).tasks[0]
    env = RankingEnv.from_suite(suite_dir)
    server = build_server(ServerSettings(suite=suite_dir, log_dir=tmp_path / "logs", run_label="r"))
    names = list(BEHAVIOURS)
    for trial, name in enumerate(names):
        await _play_over_mcp(server, task, trial, BEHAVIOURS[name][0](task))
    files = find_logs([tmp_path / "logs"])
    episodes = ranking_episodes(files, Resolver(suite=suite_dir))
    (group,) = export_lines(episodes, "grpo", 0)
    exported = {r["trial"]: r["reward"] for r in group["rollouts"]}
    scored = {trajectory.header.trial: reward for _, _, trajectory, reward in episodes}
    for trial, name in enumerate(names):
        calls, expected = BEHAVIOURS[name]
        rewards = {
            "env": _env_reward(env, task, calls(task)),
            "mcp log, evaluator": scored[trial],
            "mcp log, export": exported[trial],
        }
        assert rewards == pytest.approx(dict.fromkeys(rewards, expected)), name


def test_the_env_refuses_an_unknown_tool_without_counting_it():
    env = RankingEnv.from_suite("ranking:builtin")
    task = env.suite.tasks[0]  # type: ignore[union-attr]
    env.reset(task)
    step = env.step({"name": "search", "arguments": {}})
    assert step.is_error and not step.done and "unknown tool 'search'" in step.observation
    assert env.episode is not None and env.episode.tool_calls == 0
