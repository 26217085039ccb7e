"""A server says in one line on stderr when it is ready (over stdio only to a person at a
terminal, and never on stdout), and a prompt or resource it does not have is a clean MCP
error with nothing on the server's stderr."""

from __future__ import annotations

import json
import logging
import os
import pty
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
import uvicorn
from mcp import Client
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from support.hang_guard import HANG_GUARD_S
from support.http_server import free_port
from support.lines import first_line

from taurec.server.app import STDIO_READY, HttpServer, build_server
from taurec.server.listening import ListeningServer
from taurec.server.settings import HttpSettings, ServerSettings

SERVE = [sys.executable, "-m", "taurec.clients.cli.serve"]
INVALID_PARAMS = -32602


async def _until_started(server: HttpServer | ListeningServer) -> None:
    with anyio.fail_after(HANG_GUARD_S):
        while not server.started:
            await anyio.sleep(0.01)


async def test_the_http_server_says_where_it_listens_once_it_listens(tmp_path: Path) -> None:
    lines: list[str] = []
    http = HttpSettings(port=free_port())
    server = HttpServer(ServerSettings(log_dir=tmp_path), http, announce=lines.append)
    assert lines == []  # not before it listens
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        await _until_started(server)
        server.stop()
    assert lines == [f"taurec server (recommendation, builtin) listening on {http.url}"]


async def test_a_listening_server_reports_the_port_the_system_chose() -> None:
    seen: list[str] = []
    config = uvicorn.Config(Starlette(), host="127.0.0.1", port=0, log_level="warning")
    server = ListeningServer(config, seen.append)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        await _until_started(server)
        server.should_exit = True
    (url,) = seen
    assert url.startswith("http://127.0.0.1:") and int(url.rsplit(":", 1)[1]) > 0


def test_stdio_typed_in_a_terminal_says_on_stderr_that_it_waits(tmp_path: Path) -> None:
    leader, terminal = pty.openpty()
    proc = subprocess.Popen(
        [*SERVE, "--log-dir", str(tmp_path)],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(terminal)
    try:
        assert proc.stderr is not None and proc.stdout is not None
        line = first_line(proc.stderr.fileno(), HANG_GUARD_S)
        assert line == f"taurec server (recommendation, builtin): {STDIO_READY}"
        proc.terminate()
        out, _ = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    assert out == b""  # stdout is the protocol's


def _rpc(id_: int, method: str, params: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}) + "\n"


def test_stdio_for_a_client_says_nothing_and_an_unknown_prompt_is_one_clean_error(
    tmp_path: Path,
) -> None:
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    }
    requests = [
        _rpc(1, "initialize", hello),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n",
        _rpc(2, "prompts/get", {"name": "test_simple_prompt"}),
        _rpc(3, "resources/read", {"uri": "test://static-text"}),
    ]
    proc = subprocess.Popen(
        [*SERVE, "--log-dir", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(requests))
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in range(3)]
    _, stderr = proc.communicate(timeout=HANG_GUARD_S)  # closes stdin: the server exits
    prompt, resource = answers[1]["error"], answers[2]["error"]
    assert prompt["code"] == INVALID_PARAMS
    assert prompt["message"] == (
        "Unknown prompt: 'test_simple_prompt' (this server's prompts: contestant)"
    )
    assert resource["code"] == INVALID_PARAMS and "test://static-text" in resource["message"]
    assert stderr == ""  # no traceback, and no ready line for a client's pipe


@pytest.mark.parametrize(("suite", "has"), [("builtin", "contestant"), ("ranking:builtin", None)])
async def test_an_unknown_prompt_is_invalid_params_naming_the_prompts_there_are(
    tmp_path: Path, suite: str, has: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    mcp = build_server(ServerSettings(suite=suite, log_dir=tmp_path))
    with caplog.at_level(logging.INFO):
        async with Client(mcp) as client:
            with pytest.raises(MCPError) as raised:
                await client.get_prompt("nope", {})
    assert raised.value.code == INVALID_PARAMS
    where = f"this server's prompts: {has}" if has else "it has none"
    assert raised.value.error.message == f"Unknown prompt: 'nope' ({where})"
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_a_known_prompt_still_renders(tmp_path: Path) -> None:
    mcp = build_server(ServerSettings(log_dir=tmp_path))
    async with Client(mcp) as client:
        prompt = await client.get_prompt("contestant", {})
    assert prompt.messages and "recommend" in str(prompt.messages[0].content)
