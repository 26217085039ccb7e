"""The address-spread attack on an open server, on every kind's: one local user opens
episodes from address after address of 127.0.0.0/8, each within the per-client quota,
until the server's cap is reached (10,000 from 101 addresses); every other client was
then refused. Now a start by a client holding few ends the longest idle episode of a
client holding the most (agent_error, "evicted: ..."), so the victim still starts; a
sealed run's plan neither evicts nor is evicted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from support.hang_guard import HANG_GUARD_S
from support.http_server import free_port
from support.results import error_text, ok

from taurec.server.app import HttpServer
from taurec.server.settings import HttpSettings, ServerSettings
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

#: suite -> (the start tool, its arguments but the task)
KINDS = {
    "builtin": ("start_episode", {}),
    "ranking:builtin": ("start_episode", {}),
    "stream:builtin": ("start_stream", {}),
}
MAX_OPEN, PER_CLIENT = 12, 4


async def _start(url: str, address: str, tool: str, task_id: str) -> Any:
    transport = httpx2.AsyncHTTPTransport(local_address=address)
    async with (
        httpx2.AsyncClient(transport=transport, timeout=HANG_GUARD_S) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        return await client.call_tool(tool, {"task_id": task_id})


@pytest.mark.parametrize("suite", list(KINDS))
async def test_a_victim_still_starts_on_a_server_filled_from_many_addresses(
    tmp_path: Path, suite: str
) -> None:
    tool, _ = KINDS[suite]
    tasks = [t.id for t in load_suite(suite).tasks]
    port = free_port()
    settings = ServerSettings(
        suite=suite,
        log_dir=tmp_path,
        max_open_episodes=MAX_OPEN,
        max_open_per_client=PER_CLIENT,
    )
    server = HttpServer(settings, HttpSettings(port=port))
    url = f"http://127.0.0.1:{port}/mcp"
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        try:
            with anyio.fail_after(HANG_GUARD_S):
                flood = []
                for n in range(MAX_OPEN // PER_CLIENT):
                    for k in range(PER_CLIENT):
                        task = tasks[(n * PER_CLIENT + k) % len(tasks)]
                        flood.append(await _start(url, f"127.0.0.{n + 2}", tool, task))
                over = await _start(url, "127.0.0.9", tool, tasks[0])  # one holding 0...
                victim = await _start(url, "127.0.0.1", tool, tasks[0])
        finally:
            server.stop()
    for result in flood:
        ok(result)
    ok(over)  # ...gets its place as well: each takes one from a client holding 4
    ok(victim)
    ends = [read_log(p).events[-1] for p in tmp_path.rglob("*.jsonl")]
    evicted = [e for e in ends if e["type"] == "end" and "evicted: " in (e.get("detail") or "")]
    assert len(evicted) == 2 and all(e["reason"] == "agent_error" for e in evicted)
    assert any("held 4 of them, the most" in e["detail"] for e in evicted)


async def test_a_client_holding_as_many_as_the_others_evicts_no_one(tmp_path: Path) -> None:
    port = free_port()
    settings = ServerSettings(log_dir=tmp_path, max_open_episodes=4, max_open_per_client=2)
    server = HttpServer(settings, HttpSettings(port=port))
    url = f"http://127.0.0.1:{port}/mcp"
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        try:
            with anyio.fail_after(HANG_GUARD_S):
                for address in ("127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.4"):
                    ok(await _start(url, address, "start_episode", "t001"))
                refused = await _start(url, "127.0.0.3", "start_episode", "t001")
        finally:
            server.stop()
    assert "the server already has 4 open episodes" in error_text(refused)
