"""The loopback relay that serves one episode's tools to an agent speaking MCP itself."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from support.hang_guard import HANG_GUARD_S

from taurec.clients.agents.base import Episode, outcome_of
from taurec.clients.agents.contestants.mcp_relay import serve_relay
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings


@asynccontextmanager
async def relayed(tmp_path: Path) -> AsyncIterator[tuple[Episode, Client]]:
    """An episode, and an MCP client connected to its relay."""
    async with (
        episode_of(tmp_path) as episode,
        serve_relay(episode) as url,
        Client(streamable_http_client(url)) as relay,
    ):
        yield episode, relay


@asynccontextmanager
async def episode_of(tmp_path: Path, task_id: str = "t001") -> AsyncIterator[Episode]:
    server = build_server(ServerSettings(log_dir=tmp_path, run_label="relay-test"))
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        started = outcome_of(
            await client.call_tool("start_episode", {"task_id": task_id, "agent_label": "t"})
        )
        data = started.data
        yield Episode(
            client=client,
            episode_id=str(data["episode_id"]),
            task_id=task_id,
            opening=str(data["opening"]),
            max_turns=int(data["max_turns"]),
            tools=tools,
        )


async def test_the_relay_lists_the_episode_tools_but_not_start_episode(tmp_path: Path) -> None:
    async with relayed(tmp_path) as (_, relay):
        names = {t.name for t in (await relay.list_tools()).tools}
    assert {"send_message", "search_catalog", "recommend", "abort_episode"} <= names
    assert not names & {"start_episode", "list_tasks"}


async def test_a_relayed_call_is_bound_to_the_episode(tmp_path: Path) -> None:
    async with relayed(tmp_path) as (_, relay):
        result = await relay.call_tool("get_user_history", {"episode_id": "someone-else"})
    assert not result.is_error and outcome_of(result).data["user_id"]


async def test_a_commit_through_the_relay_ends_the_harness_episode(tmp_path: Path) -> None:
    async with relayed(tmp_path) as (episode, relay):
        await relay.call_tool("recommend", {"item_id": None})
        after = await relay.call_tool("get_user_history", {})
    assert episode.ended and episode.end_reason == "abstained"
    assert after.is_error and "has ended" in outcome_of(after).text


async def test_a_tool_not_relayed_is_an_error(tmp_path: Path) -> None:
    async with relayed(tmp_path) as (_, relay):
        result = await relay.call_tool("start_episode", {"task_id": "t002"})
    assert result.is_error and "unknown tool 'start_episode'" in outcome_of(result).text


async def test_a_relay_answers_only_at_its_secret_path(tmp_path: Path) -> None:
    async with episode_of(tmp_path) as episode, serve_relay(episode) as url:
        shared = url.rpartition("/")[0]  # http://127.0.0.1:PORT/mcp, the same for every relay
        assert shared.endswith("/mcp")
        async with httpx.AsyncClient(timeout=HANG_GUARD_S) as http:
            response = await http.post(
                shared,
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={"Accept": "application/json, text/event-stream"},
            )
    assert response.status_code == 404


async def test_two_relays_have_different_secret_paths(tmp_path: Path) -> None:
    async with (
        episode_of(tmp_path / "a") as first,
        serve_relay(first) as one,
        serve_relay(first) as two,
    ):
        assert one.rpartition("/")[2] != two.rpartition("/")[2]


async def test_a_request_left_open_does_not_keep_the_relay_up(tmp_path: Path) -> None:
    with anyio.fail_after(HANG_GUARD_S):
        async with episode_of(tmp_path) as episode, serve_relay(episode) as url:
            authority, path = url.split("/", 3)[2:]
            port = int(authority.rsplit(":", 1)[1])
            held = socket.create_connection(("127.0.0.1", port))
            held.sendall(  # a request whose body never comes
                f"POST /{path} HTTP/1.1\r\nHost: {authority}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{".encode()
            )
            await anyio.sleep(0.5)  # the relay has begun reading it
    held.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD_S).close()
