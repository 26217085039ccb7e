"""Caps on the stream kind: every string argument has a schema cap, an unknown item id is
echoed cut, the call past `max_tool_calls_per_episode` in one shopping episode ends the
stream as agent_error, and so a flood of maximal calls leaves a log of bounded size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client
from support.results import error_text, ok

from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.server.stream.app import MAX_DETAIL, MAX_ID, MAX_QUESTION
from taurec.tasks.stream.protocol import StreamProtocol, StreamRules
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

SUITE = "stream:builtin"
#: What one logged call may add beyond its capped arguments: ids, hashes, an answer.
RECORD_SLACK = 8_000


def _server(tmp_path: Path, **settings: Any) -> Any:
    return build_server(ServerSettings(suite=SUITE, log_dir=tmp_path, run_label="t", **settings))


def _task() -> Any:
    return load_suite(SUITE).tasks[0]


async def _start(client: Client, **arguments: Any) -> str:
    started = ok(await client.call_tool("start_stream", {"task_id": _task().id, **arguments}))
    return str(started["episode_id"])


async def test_over_long_arguments_are_refused_before_the_stream(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        stream = await _start(client)
        for name, arguments in (
            ("ask_question", {"question": "q" * (MAX_QUESTION + 1)}),
            ("recommend_item", {"item_id": "i" * (MAX_ID + 1)}),
            ("interim_recommendation", {"item_id": "i" * (MAX_ID + 1)}),
        ):
            result = await client.call_tool(name, {"episode_id": stream, **arguments})
            assert result.is_error, name
        over = {"task_id": "t" * (MAX_ID + 1)}
        assert (await client.call_tool("start_stream", over)).is_error
    (path,) = tmp_path.rglob("*.jsonl")
    assert not [e for e in read_log(path).events if e["type"] == "tool_call"]


async def test_an_unknown_item_id_is_echoed_cut(tmp_path: Path) -> None:
    protocol = StreamProtocol(rules=StreamRules.TAUREC)
    async with Client(_server(tmp_path, stream_protocol=protocol)) as client:
        stream = await _start(client)
        result = await client.call_tool(
            "interim_recommendation", {"episode_id": stream, "item_id": "zq" * (MAX_ID // 2)}
        )
    text = error_text(result)
    assert "is not in episode 1's choice set" in text and "zq" * 40 not in text


async def test_the_call_past_the_limit_in_one_episode_ends_the_stream(tmp_path: Path) -> None:
    task = _task()
    async with Client(_server(tmp_path, max_tool_calls_per_episode=4)) as client:
        stream = await _start(client)
        for _ in range(2):  # four calls in episode 1 (next_episode too), four in episode 2
            ok(await client.call_tool("current_episode", {"episode_id": stream}))
        best = task.episodes[0].ranked()[0]
        ok(await client.call_tool("recommend_item", {"episode_id": stream, "item_id": best}))
        ok(await client.call_tool("next_episode", {"episode_id": stream}))
        for _ in range(4):
            ok(await client.call_tool("current_episode", {"episode_id": stream}))
        past = await client.call_tool("current_episode", {"episode_id": stream})
        after = await client.call_tool("current_episode", {"episode_id": stream})
    assert "limit of 4 tool calls per episode" in error_text(past)
    assert "has ended (agent_error)" in error_text(after)
    (path,) = tmp_path.rglob("*.jsonl")
    log = read_log(path)
    refused = log.events[-2]
    assert refused["type"] == "tool_result" and refused.get("refused") is True
    end = log.events[-1]
    assert end["reason"] == "agent_error"
    assert end["detail"].startswith("tool-call limit: 4 tool calls made in episode 2 of")


async def test_a_stream_flood_leaves_a_log_under_its_bound(tmp_path: Path) -> None:
    """Every shopping episode flooded with maximal questions up to the limit (the budget's
    answered, the rest refused), then a recommendation and next_episode; in the last one,
    calls past the limit. The log holds at most episodes x (limit + 1) calls."""
    limit = 25
    task = _task()
    question = {"question": "q" * MAX_QUESTION}
    async with Client(_server(tmp_path, max_tool_calls_per_episode=limit)) as client:
        stream = await _start(client, agent_label="a" * 200)
        for n, spec in enumerate(task.episodes):
            last = n == len(task.episodes) - 1
            for _ in range(limit + 10 if last else limit - 2):
                await client.call_tool("ask_question", {"episode_id": stream, **question})
            if not last:
                pick = {"episode_id": stream, "item_id": spec.ranked()[0]}
                ok(await client.call_tool("recommend_item", pick))
                ok(await client.call_tool("next_episode", {"episode_id": stream}))
        aborted = {"episode_id": stream, "reason": "agent_error", "detail": "d" * MAX_DETAIL}
        assert (await client.call_tool("abort_episode", aborted)).is_error
    (path,) = tmp_path.rglob("*.jsonl")
    log = read_log(path)
    assert log.events[-1]["reason"] == "agent_error"
    assert log.events[-1]["detail"].startswith("tool-call limit: ")
    calls = len(task.episodes) * (limit + 1)
    assert sum(e["type"] == "tool_call" for e in log.events) <= calls
    bound = 3 * RECORD_SLACK + calls * (MAX_QUESTION + RECORD_SLACK)
    assert path.stat().st_size < bound < 5_000_000


async def test_a_flood_stops_at_the_streams_log_limit(tmp_path: Path) -> None:
    """The flood that wrote 27 MB for one stream (3.3 GB for a plan of 120): maximal
    questions up to the call limit in every episode. At the server's defaults the stream
    ends at its log limit, its log within the limit and one call's records."""
    settings = ServerSettings(suite=SUITE, log_dir=tmp_path, run_label="t")
    task = _task()
    question = {"question": "q" * MAX_QUESTION}
    ended = None
    async with Client(build_server(settings)) as client:
        stream = await _start(client)
        for spec in task.episodes:
            for _ in range(settings.max_tool_calls_per_episode - 2):
                result = await client.call_tool("ask_question", {"episode_id": stream, **question})
                if result.is_error and "has ended" in error_text(result):
                    ended = error_text(result)
                    break
            if ended:
                break
            pick = {"episode_id": stream, "item_id": spec.ranked()[0]}
            ok(await client.call_tool("recommend_item", pick))
            ok(await client.call_tool("next_episode", {"episode_id": stream}))
    assert ended is not None and "max_stream_log_bytes" in ended
    (path,) = tmp_path.rglob("*.jsonl")
    end = read_log(path).events[-1]
    assert end["reason"] == "agent_error" and end["detail"].startswith("log limit: ")
    assert path.stat().st_size < settings.max_stream_log_bytes + 2 * (MAX_QUESTION + RECORD_SLACK)
