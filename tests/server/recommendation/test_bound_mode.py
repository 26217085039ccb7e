"""Bound mode: a server that serves one (task, trial) episode, for a person's desktop agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server import MCPServer

from taurec.catalog.errors import DataError
from taurec.server.app import build_server
from taurec.server.run_facts import derive_seed
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.reader import read_log


def _server(tmp_path: Path, **kw: Any) -> MCPServer:
    return build_server(ServerSettings(log_dir=tmp_path, run_label="desk", task="t002", **kw))


def _logs(tmp_path: Path) -> list[Path]:
    return sorted(tmp_path.rglob("*.jsonl"))


async def test_episode_id_may_be_omitted_in_every_tool(tmp_path: Path) -> None:
    async with Client(_server(tmp_path, trial=3)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "episode_id" not in (tools["send_message"].input_schema.get("required") or [])
        started = (await client.call_tool("start_episode", {})).structured_content
        assert started is not None and (started["task_id"], started["trial"]) == ("t002", 3)
        for name, args in (
            ("send_message", {"text": "Hello! What would you like?"}),
            ("search_catalog", {"query": "japanese"}),
            ("get_user_history", {}),
            ("recommend", {"item_id": None}),
        ):
            result = await client.call_tool(name, args)
            assert not result.is_error, result.content
    (log,) = _logs(tmp_path)
    parsed = read_log(log)
    assert parsed.ok and parsed.header is not None
    assert parsed.header.episode_id == started["episode_id"]
    assert parsed.header.seed == derive_seed("t002", 3)


async def test_the_first_call_starts_the_episode_and_the_opening_comes_with_the_first_reply(
    tmp_path: Path,
) -> None:
    async with Client(_server(tmp_path)) as client:
        history = await client.call_tool("get_user_history", {})
        assert not history.is_error
        first = (await client.call_tool("send_message", {"text": "Hi"})).structured_content
        second = (
            await client.call_tool("send_message", {"text": "Tell me more"})
        ).structured_content
    assert first is not None and first["opening"]
    assert second is not None and second["opening"] is None
    assert len(_logs(tmp_path)) == 1


async def test_concurrent_first_calls_start_one_episode(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client, anyio.create_task_group() as tg:
        for _ in range(10):
            tg.start_soon(client.call_tool, "get_user_history", {})
    assert len(_logs(tmp_path)) == 1


async def test_start_episode_returns_the_same_episode_until_it_ends(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        first = (await client.call_tool("start_episode", {})).structured_content
        again = (await client.call_tool("start_episode", {"task_id": "t002"})).structured_content
        assert first is not None and again is not None
        assert first["episode_id"] == again["episode_id"]
        await client.call_tool("recommend", {"item_id": None})
        ended = await client.call_tool("start_episode", {})
        assert ended.is_error and "has ended (abstained)" in str(ended.content)


@pytest.mark.parametrize(
    "args", [{"task_id": "t001"}, {"trial": 1}, {"task_id": "t002", "seed": 12345}]
)
async def test_start_episode_refuses_another_episode(tmp_path: Path, args: dict[str, Any]) -> None:
    async with Client(_server(tmp_path)) as client:
        result = await client.call_tool("start_episode", args)
    assert result.is_error and "bound to task 't002'" in str(result.content)
    assert _logs(tmp_path) == []


def test_a_bound_task_must_be_in_the_suite(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="t999"):
        build_server(ServerSettings(log_dir=tmp_path, task="t999"))
