"""`taurec crs-demo` and `taurec a2a-demo` say where they listen, in one line on stderr,
and refuse a port in use as `taurec serve` does: one line, exit code 2."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
import typer
from support.hang_guard import HANG_GUARD_S
from support.lines import first_line
from typer.testing import CliRunner

from taurec.clients.cli.a2a_demo import a2a_demo
from taurec.clients.cli.crs_demo import crs_demo
from taurec.clients.cli.serve import serve

TAUREC = [sys.executable, "-m", "taurec.clients.cli.main"]


def _app(command: object) -> typer.Typer:
    app = typer.Typer()
    app.command()(command)
    return app


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


@pytest.mark.parametrize("command", [crs_demo, a2a_demo, serve], ids=["crs", "a2a", "serve"])
def test_a_port_in_use_is_the_same_one_line_and_exit_2(command: object, taken_port: int) -> None:
    args = ["--port", str(taken_port)]
    if command is serve:
        args = ["--transport", "http", *args]
    result = CliRunner().invoke(_app(command), args)
    assert result.exit_code == 2, result.output
    assert result.output == (
        f"error: --port {taken_port}: cannot listen on 127.0.0.1:{taken_port} (Address "
        "already in use); another server may be using it: stop it or choose another --port\n"
    )


def test_the_crs_demo_says_where_it_listens_and_how_to_play_it() -> None:
    proc = subprocess.Popen(
        [*TAUREC, "crs-demo", "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        line = first_line(proc.stderr.fileno(), HANG_GUARD_S)  # port 0: the one it got
        url = line.split(" listening on ")[1].split("/;")[0] + "/"
        assert line == (
            f"crs-demo (suite builtin) listening on {url}; play it with: taurec run --agent "
            f"crs --crs-url {url} (Ctrl-C to stop)"
        )
        assert httpx.post(url, json={"message": "hi", "context": []}, timeout=10).status_code == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=HANG_GUARD_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
