"""The MCP tool surface, in memory: full episodes, logging fidelity, bad arguments, ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client
from mcp.server import MCPServer
from mcp_types import CallToolResult
from support.results import error_text as _error
from support.results import ok as _ok

from taurec.evaluator.logs import Resolver, score_paths
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation import catalog_tools as ct
from taurec.tasks.recommendation.answers import answers, compliant_answers
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

SUITE = load_suite("builtin")


def _server(tmp_path: Path) -> MCPServer:
    return build_server(ServerSettings(log_dir=tmp_path, run_label="test"))


def _log_of(tmp_path: Path, episode_id: str) -> Path:
    (path,) = tmp_path.rglob(f"*-{episode_id[:12]}.jsonl")
    return path


async def _start(client: Client, task_id: str = "t001", **kw: Any) -> str:
    started = _ok(await client.call_tool("start_episode", {"task_id": task_id, **kw}))
    return str(started["episode_id"])


async def play_by_the_rules(client: Client, task_id: str) -> str:
    """A scripted agent that knows the answer key and follows every policy."""
    task = SUITE.get(task_id)
    assert task is not None
    ids = answers(task, SUITE.catalog.items)
    good = compliant_answers(task, [i for i in map(SUITE.catalog.get, ids) if i is not None])
    eid = await _start(client, task_id)
    call = client.call_tool
    _ok(await call("send_message", {"episode_id": eid, "text": "Hi! What are you after?"}))
    _ok(await call("search_catalog", {"episode_id": eid, "query": "adventure", "limit": 5}))
    _ok(await call("filter_catalog", {"episode_id": eid, "min_rating": 5, "limit": 3}))
    _ok(await call("get_user_history", {"episode_id": eid}))
    if not good:
        message = "Nothing in the catalog fits everything you need, so I won't force it."
        _ok(await call("recommend", {"episode_id": eid, "item_id": None, "message": message}))
        return eid
    item = SUITE.catalog.get(good[0])
    assert item is not None
    _ok(await call("get_item", {"episode_id": eid, "item_id": item.id}))
    _ok(await call("check_availability", {"episode_id": eid, "item_id": item.id}))
    _ok(await call("check_content_preference", {"episode_id": eid, "item_id": item.id}))
    message = "Note: this is a sponsored (promoted) title." if item.sponsored else "Enjoy!"
    done = _ok(await call("recommend", {"episode_id": eid, "item_id": item.id, "message": message}))
    assert done["committed"] == item.id and done["episode_ended"]
    return eid


@pytest.mark.parametrize("task_id", ["t048", "t021", "t004"])
async def test_a_full_episode_is_logged_complete_and_passes(tmp_path: Path, task_id: str) -> None:
    async with Client(_server(tmp_path)) as client:
        await play_by_the_rules(client, task_id)
    (score,) = score_paths([tmp_path], Resolver())
    assert not score.infra_error, score.problems
    assert score.problems == []
    assert score.passed, [(r.policy, r.reason) for r in score.policy_results]


async def test_logged_results_are_exactly_what_the_agent_received(tmp_path: Path) -> None:
    seen: list[tuple[str, dict[str, Any], CallToolResult]] = []
    async with Client(_server(tmp_path)) as client:
        eid = await _start(client, "t048")
        for name, args in [
            ("search_catalog", {"query": "heist", "limit": 4}),
            ("filter_catalog", {"genres_any": ["Drama"], "runtime_max": 120, "limit": 2}),
            ("get_item", {"item_id": "syn_000001"}),
            ("get_item", {"item_id": "syn_999999"}),
            ("check_availability", {"item_id": "syn_000002"}),
            ("get_user_history", {}),
            ("check_content_preference", {"content_rating": "R"}),
            ("search_catalog", {"query": "x", "limit": 0}),
        ]:
            seen.append((name, args, await client.call_tool(name, {"episode_id": eid, **args})))
    events = read_log(_log_of(tmp_path, eid)).events
    results = [e for e in events if e["type"] == "tool_result"]
    assert len(results) == len(seen)
    task = SUITE.get("t048")
    assert task is not None
    for (name, _, received), logged in zip(seen, results, strict=True):
        if received.is_error:
            assert logged["is_error"] and logged["content"] == _error(received)
        else:
            assert logged["content"] == received.structured_content
            call = next(e for e in events if e.get("call_id") == logged["call_id"])
            replayed = ct.replay_call(SUITE.catalog, task, name, call["arguments"])
            assert replayed == logged["content"]


BAD_CALLS = [
    ("send_message", {"text": ""}, "text"),
    ("send_message", {"text": 42}, "text"),
    ("search_catalog", {"query": "space", "limit": 500}, "limit"),
    ("search_catalog", {"query": ""}, "query"),
    ("search_catalog", {"limit": 3}, "query"),
    ("filter_catalog", {"runtime_min": -1}, "runtime_min"),
    ("filter_catalog", {"runtime_min": 120, "runtime_max": 90}, "runtime_min"),
    ("filter_catalog", {"sort": "loudness"}, "sort"),
    ("filter_catalog", {"cursor": "bogus"}, "cursor"),
    ("filter_catalog", {"released_after": "yesterday"}, "released_after"),
    ("filter_catalog", {"colour": "red"}, "colour"),
    ("get_item", {"item_id": "syn_999999"}, "item_id"),
    ("get_item", {}, "item_id"),
    ("check_availability", {"item_id": ["syn_000001"]}, "item_id"),
    ("check_content_preference", {}, "item_id"),
    ("check_content_preference", {"content_rating": "XXX"}, "content_rating"),
    ("recommend", {"item_id": "syn_999999"}, "item_id"),
    ("recommend", {"item_id": ""}, "item_id"),
    ("recommend", {"item_id": "null"}, "item_id"),
    ("recommend", {"item_id": 7}, "item_id"),
]


@pytest.mark.parametrize(("tool", "args", "argument"), BAD_CALLS)
async def test_bad_arguments_are_errors_naming_the_argument(
    tmp_path: Path, tool: str, args: dict[str, Any], argument: str
) -> None:
    async with Client(_server(tmp_path)) as client:
        eid = await _start(client)
        text = _error(await client.call_tool(tool, {"episode_id": eid, **args}))
        assert argument in text
        # ...is logged as the agent saw it, commits nothing, and the episode goes on
        events = read_log(_log_of(tmp_path, eid)).events
        assert events[-1]["type"] == "tool_result" and events[-1]["content"] == text
        assert events[-2]["type"] == "tool_call" and events[-2]["name"] == tool
        _ok(await client.call_tool("get_user_history", {"episode_id": eid}))


async def test_a_string_null_is_not_an_abstention(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        eid = await _start(client)
        text = _error(await client.call_tool("recommend", {"episode_id": eid, "item_id": "null"}))
        assert "JSON null" in text
    events = read_log(_log_of(tmp_path, eid)).events
    assert events[-2]["arguments"]["item_id"] == "null"
    assert all(e["type"] != "end" for e in events)


EPISODE_CALLS = [
    ("send_message", {"text": "hi"}),
    ("search_catalog", {"query": "space"}),
    ("filter_catalog", {}),
    ("get_item", {"item_id": "syn_000001"}),
    ("check_availability", {"item_id": "syn_000001"}),
    ("get_user_history", {}),
    ("check_content_preference", {"content_rating": "PG"}),
    ("recommend", {"item_id": None}),
]


@pytest.mark.parametrize(("tool", "args"), EPISODE_CALLS)
async def test_an_unknown_episode_id_is_an_actionable_error(
    tmp_path: Path, tool: str, args: dict[str, Any]
) -> None:
    async with Client(_server(tmp_path)) as client:
        text = _error(await client.call_tool(tool, {"episode_id": "0" * 32, **args}))
    assert "unknown episode_id" in text and "start_episode" in text


@pytest.mark.parametrize(("tool", "args"), EPISODE_CALLS)
async def test_after_the_end_every_tool_says_the_episode_ended_and_how(
    tmp_path: Path, tool: str, args: dict[str, Any]
) -> None:
    async with Client(_server(tmp_path)) as client:
        eid = await _start(client)
        _ok(await client.call_tool("recommend", {"episode_id": eid, "item_id": "syn_000020"}))
        text = _error(await client.call_tool(tool, {"episode_id": eid, **args}))
    assert "has ended (recommended): you recommended syn_000020" in text
    lines = _log_of(tmp_path, eid).read_bytes().splitlines()
    assert orjson.loads(lines[-1])["type"] == "end"  # nothing was logged after the end


async def test_episode_id_is_required_outside_bound_mode(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("send_message", "search_catalog", "recommend", "get_user_history"):
            assert "episode_id" in (tools[name].input_schema.get("required") or [])
        assert "episode_id" in _error(await client.call_tool("get_user_history", {}))
        assert "task_id" in _error(await client.call_tool("start_episode", {}))
        assert "task_id" in _error(await client.call_tool("start_episode", {"task_id": "t999"}))


async def test_tools_carry_descriptions_output_schemas_and_hints(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= {
        "list_tasks", "server_info", "start_episode", "send_message", "search_catalog",
        "filter_catalog", "get_item", "check_availability", "get_user_history",
        "check_content_preference", "recommend",
    }  # fmt: skip
    for tool in tools.values():
        assert tool.description and tool.output_schema and tool.annotations
    for name in ct.READ_ONLY_TOOLS:
        assert tools[name].annotations.read_only_hint is True  # type: ignore[union-attr]
    commit = tools["recommend"].annotations
    assert commit is not None and commit.destructive_hint and not commit.idempotent_hint
    filter_args = tools["filter_catalog"].input_schema["properties"]
    assert "genres_any" in filter_args and filter_args["limit"]["maximum"] == 100
    assert filter_args["runtime_max"]["description"]


async def test_server_info_describes_the_server(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        info = _ok(await client.call_tool("server_info", {}))
    assert info["name"] == "taurec" and info["suite"] == "builtin"
    assert (info["tasks"], info["catalog_items"]) == (len(SUITE.tasks), len(SUITE.catalog))
