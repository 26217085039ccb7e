"""Caps on the ranking and ppr kinds: every string argument has a schema cap, errors echo
a cut value, the call past `max_tool_calls_per_episode` ends the episode, and so a flood
of maximal calls leaves a log of bounded size."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from support.ppr import write_pair_suite
from support.ranking import write_ranking_suite
from support.results import error_text

from taurec.server.app import build_server
from taurec.server.ranking.app import MAX_DETAIL
from taurec.server.ranking.env import RankingEnv
from taurec.server.ranking.ppr import MAX_ANSWER
from taurec.server.ranking.tools import ECHO_CHARS
from taurec.server.settings import ServerSettings
from taurec.tasks.ranking.rules import MAX_ID, MAX_RANKING_IDS, MAX_REJECTED, MAX_REPLY, MAX_TITLE
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

#: What one logged call may add beyond its capped arguments: ids, hashes, a tool's answer.
RECORD_SLACK = 8_000


def _ranking(tmp_path: Path, **settings: object) -> tuple[object, str]:
    suite = str(write_ranking_suite(tmp_path / "suite", n=1))
    server = build_server(
        ServerSettings(suite=suite, log_dir=tmp_path / "logs", run_label="r", **settings)
    )
    return server, suite


async def _start(client: Client, task_id: str, **arguments: object) -> str:
    started = await client.call_tool("start_episode", {"task_id": task_id, **arguments})
    assert not started.is_error, started.content
    return str(started.structured_content["episode_id"])


def _only_log(tmp_path: Path) -> Path:
    (log,) = (tmp_path / "logs").rglob("*.jsonl")
    return log


async def test_an_over_long_title_is_refused_by_the_schema_and_not_counted(tmp_path: Path):
    server, suite = _ranking(tmp_path)
    task = load_suite(suite).tasks[0]
    async with Client(server) as client:
        episode_id = await _start(client, task.id)
        refused = await client.call_tool(
            "item_info_search", {"episode_id": episode_id, "item_name": "x" * (MAX_TITLE + 1)}
        )
        for _ in range(task.tool_budget):  # the whole budget is still there
            answered = await client.call_tool("get_user_profile", {"episode_id": episode_id})
            assert not answered.is_error
    assert refused.is_error
    calls = [e for e in read_log(_only_log(tmp_path)).events if e["type"] == "tool_call"]
    assert len(calls) == task.tool_budget and "item_info_search" not in {c["name"] for c in calls}


def test_the_env_refuses_an_over_long_title_uncounted_as_the_schema_does():
    env = RankingEnv.from_suite("ranking:builtin")
    env.reset(env.suite.tasks[0])  # type: ignore[union-attr]
    step = env.step({"name": "get_similar_items", "arguments": {"item_title": "x" * 1001}})
    assert step.is_error and not step.done and f"at most {MAX_TITLE}" in step.observation
    assert env.episode is not None and env.episode.tool_calls == 0


async def test_an_unknown_title_is_echoed_cut_in_its_error(tmp_path: Path):
    server, suite = _ranking(tmp_path)
    task = load_suite(suite).tasks[0]
    async with Client(server) as client:
        episode_id = await _start(client, task.id)
        result = await client.call_tool(
            "item_info_search", {"episode_id": episode_id, "item_name": "zq" * (MAX_TITLE // 2)}
        )
    text = error_text(result)
    assert "No item named" in text and "zq" * (ECHO_CHARS // 2) not in text
    assert len(text) < 300


async def test_the_call_past_max_tool_calls_per_episode_ends_it_as_agent_error(tmp_path: Path):
    server, suite = _ranking(tmp_path, max_tool_calls_per_episode=3)
    task = load_suite(suite).tasks[0]
    async with Client(server) as client:
        episode_id = await _start(client, task.id)
        for _ in range(3):
            answered = await client.call_tool("get_user_profile", {"episode_id": episode_id})
            assert not answered.is_error
        past = await client.call_tool("get_user_profile", {"episode_id": episode_id})
        after = await client.call_tool("get_user_profile", {"episode_id": episode_id})
    assert "limit of 3 tool calls per episode" in error_text(past)
    assert "has ended (agent_error)" in error_text(after)
    log = read_log(_only_log(tmp_path))
    end = log.events[-1]
    assert end["type"] == "end" and end["reason"] == "agent_error"
    assert end["detail"].startswith("tool-call limit: 3 tool calls made")
    assert sum(e["type"] == "tool_call" for e in log.events) == 3  # the refused one never ran


async def test_an_over_long_start_argument_is_refused(tmp_path: Path):
    server, suite = _ranking(tmp_path)
    task = load_suite(suite).tasks[0]
    async with Client(server) as client:
        for arguments in (
            {"task_id": "t" * (MAX_ID + 1)},
            {"task_id": task.id, "agent_label": "a" * 201},
            {"task_id": task.id, "agent_label": "has space"},
            {"task_id": task.id, "seed": 2**64},
        ):
            assert (await client.call_tool("start_episode", arguments)).is_error, arguments
    assert not list((tmp_path / "logs").rglob("*.jsonl"))


async def test_a_ranking_flood_leaves_a_log_under_its_bound(tmp_path: Path):
    """Maximal titles to the budget and past it, then maximal submissions: the log of the
    first episode holds budget + 1 calls, the second's one maximal answer."""
    server, suite = _ranking(tmp_path)
    task = load_suite(suite).tasks[0]
    title = "q" * MAX_TITLE
    async with Client(server) as client:
        flooded = await _start(client, task.id, agent_label="a" * 200)
        for n in range(task.tool_budget + 20):
            name, arg = (
                ("item_info_search", "item_name") if n % 2 else ("get_similar_items", "item_title")
            )
            await client.call_tool(name, {"episode_id": flooded, arg: title})
        answered = await _start(client, task.id, trial=1)
        too_long = [c * MAX_ID for c in "abcdefghij"] * (MAX_RANKING_IDS // 10 + 1)
        refused = await client.call_tool(
            "submit_ranking", {"episode_id": answered, "ranking": too_long}
        )
        assert refused.is_error
        maximal = {
            "episode_id": answered,
            "ranking": list(task.candidates[:10]),
            "reply": "r" * MAX_REPLY,
            "rejected_replies": ["j" * MAX_REPLY] * MAX_REJECTED,
        }
        assert not (await client.call_tool("submit_ranking", maximal)).is_error
        for _ in range(20):
            await client.call_tool("submit_ranking", maximal)
        await client.call_tool(
            "abort_episode",
            {"episode_id": answered, "reason": "agent_error", "detail": "d" * MAX_DETAIL},
        )
    logs = {read_log(p).header.trial: p for p in (tmp_path / "logs").rglob("*.jsonl")}  # type: ignore[union-attr]
    opening = len(next(e for e in read_log(logs[0]).events if e["type"] == "user_message")["text"])
    calls = task.tool_budget + 1
    first_bound = 2 * opening + calls * (2 * MAX_TITLE + RECORD_SLACK) + RECORD_SLACK
    assert logs[0].stat().st_size < first_bound
    assert read_log(logs[0]).events[-1]["reason"] == "max_turns"
    second_bound = 2 * opening + MAX_REPLY * (MAX_REJECTED + 1) + 2 * RECORD_SLACK
    assert logs[1].stat().st_size < second_bound < 2_000_000
    assert read_log(logs[1]).events[-1]["reason"] == "recommended"


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(write_pair_suite(tmp_path_factory.mktemp("ppr")))


async def test_a_ppr_flood_leaves_a_log_of_one_answer(pairs: str, tmp_path: Path):
    server = build_server(ServerSettings(suite=pairs, log_dir=tmp_path / "logs", run_label="p"))
    task = load_suite(pairs).tasks[0]
    async with Client(server) as client:
        episode_id = await _start(client, task.id, agent_label="a" * 200)
        over = {"episode_id": episode_id, "answer": "z" * (MAX_ANSWER + 1)}
        assert (await client.call_tool("submit_answer", over)).is_error
        maximal = {"episode_id": episode_id, "answer": "z" * MAX_ANSWER}
        first = await client.call_tool("submit_answer", maximal)
        assert not first.is_error and len(first.structured_content["message"]) < 300
        for _ in range(50):
            assert (await client.call_tool("submit_answer", maximal)).is_error
    log = read_log(_only_log(tmp_path))
    opening = len(next(e for e in log.events if e["type"] == "user_message")["text"])
    assert sum(e["type"] == "tool_call" for e in log.events) == 1
    assert _only_log(tmp_path).stat().st_size < 2 * opening + MAX_ANSWER + 2 * RECORD_SLACK
    assert log.events[-1]["reason"] == "recommended"
