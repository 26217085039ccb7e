"""`taurec serve` over real transports: stdio and Streamable HTTP, in subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from support.hang_guard import HANG_GUARD_S
from support.http_server import http_server as serve_http

from taurec.evaluator.logs import Resolver, score_paths
from taurec.tasks.trajectory.reader import read_log

SERVE = [sys.executable, "-m", "taurec.clients.cli.serve"]


async def play(client: Client, task_id: str, trial: int, label: str) -> tuple[str, str]:
    """One short episode (talk, look up, commit the first match); returns (episode id, item)."""
    started = await client.call_tool(
        "start_episode", {"task_id": task_id, "trial": trial, "agent_label": label}
    )
    assert not started.is_error, started.content
    eid = (started.structured_content or {})["episode_id"]
    reply = await client.call_tool("send_message", {"episode_id": eid, "text": "Hi, what's up?"})
    assert not reply.is_error, reply.content
    await client.call_tool("get_user_history", {"episode_id": eid})
    page = await client.call_tool("filter_catalog", {"episode_id": eid, "limit": 50})
    item = (page.structured_content or {})["items"][trial % 50]["id"]
    await client.call_tool("check_availability", {"episode_id": eid, "item_id": item})
    done = await client.call_tool("recommend", {"episode_id": eid, "item_id": item})
    assert (done.structured_content or {})["committed"] == item, done.content
    return eid, item


def _complete_logs(log_dir: Path) -> list[Path]:
    logs = sorted(log_dir.rglob("*.jsonl"))
    for path in logs:
        parsed = read_log(path)
        assert parsed.ok, parsed.problems
    return logs


# --- stdio ---------------------------------------------------------------------------------


async def test_a_full_episode_over_stdio(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=SERVE[0], args=[*SERVE[1:], "--log-dir", str(tmp_path), "--label", "stdio-agent"]
    )
    async with Client(params) as client:
        eid, item = await play(client, "t005", 0, "stdio-agent")
    (log,) = _complete_logs(tmp_path)
    assert eid[:12] in log.name
    (score,) = score_paths([tmp_path], Resolver())
    assert (score.label, score.item_id, score.infra_error) == ("stdio-agent", item, False)


def test_stdio_stdout_carries_only_protocol_messages(tmp_path: Path) -> None:
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "start_episode", "arguments": {"task_id": "nope"}},
        },
    ]
    proc = subprocess.Popen(
        [*SERVE, "--log-dir", str(tmp_path), "--log-level", "DEBUG"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
    proc.stdin.flush()
    answers = [proc.stdout.readline(), proc.stdout.readline()]  # initialize, tools/call
    rest, stderr = proc.communicate(timeout=HANG_GUARD_S)  # closes stdin: the server exits
    lines = [line for line in [*answers, *rest.splitlines()] if line.strip()]
    assert [json.loads(line)["id"] for line in lines] == [1, 2]
    assert "task_id" in lines[-1]
    assert "start_episode" in stderr  # the server's own logging went to stderr


# --- Streamable HTTP -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    log_dir = tmp_path_factory.mktemp("http-logs")
    with serve_http(log_dir) as port:
        yield f"http://127.0.0.1:{port}/mcp", log_dir


async def test_a_full_episode_over_http(http_server: tuple[str, Path]) -> None:
    url, log_dir = http_server
    async with Client(url) as client:
        eid, item = await play(client, "t021", 7, "http-agent")
    (log,) = [p for p in _complete_logs(log_dir) if eid[:12] in p.name]
    scores = {s.path: s for s in score_paths([log], Resolver())}
    assert scores[str(log)].item_id == item and not scores[str(log)].infra_error


@pytest.mark.slow
async def test_a_hundred_simultaneous_http_episodes_do_not_cross_talk(
    http_server: tuple[str, Path],
) -> None:
    url, log_dir = http_server
    played: dict[str, tuple[str, int, str]] = {}

    async def one(k: int) -> None:
        task_id = f"t{1 + k % 60:03d}"
        async with Client(url) as client:
            eid, item = await play(client, task_id, k, f"agent-{k}")
        played[eid] = (task_id, k, item)

    with anyio.fail_after(HANG_GUARD_S):  # a hang guard only: a loaded 2-core machine takes minutes
        async with anyio.create_task_group() as tg:
            for k in range(100):
                tg.start_soon(one, k)
    assert len(played) == 100
    for path in _complete_logs(log_dir):
        parsed = read_log(path)
        assert parsed.header is not None
        if parsed.header.agent.label == "http-agent":
            continue
        task_id, trial, item = played.pop(parsed.header.episode_id)
        assert (parsed.header.task_id, parsed.header.trial) == (task_id, trial)
        assert parsed.header.agent.label == f"agent-{trial}"
        assert parsed.events[-1]["item_id"] == item
    assert played == {}
