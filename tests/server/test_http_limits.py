"""uvicorn's limits under `taurec serve --transport http` (connections, header size,
keep-alive), and request bodies that do not stay in memory once their requests end."""

from __future__ import annotations

import socket
import time
from contextlib import suppress
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from support.hang_guard import HANG_GUARD_S, wait_until
from support.http_server import free_port, http_server_process

from taurec.server.app import HttpServer
from taurec.server.settings import HttpSettings, ServerSettings

BODY = 1024 * 1024 - 4096  # just under the default 1 MiB body limit


def _post(port: int, declared: int, sent: bytes, **headers: str) -> socket.socket:
    """A raw POST to /mcp that declares `declared` body bytes and sends `sent`."""
    s = socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD_S)
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{extra}Content-Length: {declared}\r\n\r\n"
    )
    s.sendall(head.encode() + sent)
    return s


def _padded(port: int, padding: int) -> socket.socket:
    """A POST whose headers (with `padding` bytes of one header) come in two parts, the
    way a slow client sends them: the server must hold the first part meanwhile."""
    s = socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD_S)
    s.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Padding: ".encode())
    s.sendall(b"p" * padding)
    time.sleep(0.5)
    with suppress(BrokenPipeError, ConnectionResetError):  # already refused
        s.sendall(b"\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
    return s


def _response(s: socket.socket) -> bytes:
    """What the server answered on `s` until it closed or paused (b"" when it closed)."""
    data = b""
    s.settimeout(HANG_GUARD_S)  # a refused request is closed; a served one, after keep-alive
    try:
        while chunk := s.recv(65536):
            data += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return data


def _status(s: socket.socket) -> int | None:
    """The status code of the response on `s`, or None when the server closed it."""
    data = b""
    while b"\r\n" not in data:
        try:
            chunk = s.recv(4096)
        except ConnectionResetError:
            return None
        if not chunk:
            return None
        data += chunk
    return int(data.split(b" ", 2)[1])


async def _serving(server: HttpServer) -> None:
    while not server.started:
        await anyio.sleep(0.01)


def test_uvicorn_gets_the_limits_of_the_settings(tmp_path: Path) -> None:
    http = HttpSettings(max_connections=7, keep_alive_seconds=3, max_header_bytes=8192, backlog=9)
    config = HttpServer(ServerSettings(log_dir=tmp_path), http)._uvicorn.config
    assert (config.limit_concurrency, config.timeout_keep_alive, config.backlog) == (7, 3, 9)
    assert config.h11_max_incomplete_event_size == 8192 and config.http == "h11"


@pytest.mark.parametrize(
    "limits",
    [{"max_connections": 0}, {"keep_alive_seconds": 0}, {"max_header_bytes": 100}, {"backlog": 0}],
)
def test_http_limits_out_of_range_are_refused(limits: dict[str, int]) -> None:
    with pytest.raises(ValueError, match=next(iter(limits))):
        HttpSettings(**limits)


async def test_headers_over_the_limit_close_the_connection(tmp_path: Path) -> None:
    port = free_port()
    # a served request's connection closes after keep-alive: 1 s, not the default 30 s
    http = HttpSettings(port=port, max_header_bytes=8192, keep_alive_seconds=1)
    server = HttpServer(ServerSettings(log_dir=tmp_path), http)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        await _serving(server)
        try:
            with anyio.fail_after(HANG_GUARD_S):
                padded = await anyio.to_thread.run_sync(lambda: _response(_padded(port, 20_000)))
                plain = await anyio.to_thread.run_sync(lambda: _response(_padded(port, 4_000)))
        finally:
            server.stop()
    refused = b"Invalid HTTP request received."  # uvicorn's answer to what h11 cannot read
    assert padded == b"" or refused in padded
    assert plain.startswith(b"HTTP/1.1 ") and refused not in plain  # read as usual


async def test_connections_over_the_limit_get_503(tmp_path: Path) -> None:
    port = free_port()
    http = HttpSettings(port=port, max_connections=2)
    server = HttpServer(ServerSettings(log_dir=tmp_path), http)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        await _serving(server)
        try:
            with anyio.fail_after(HANG_GUARD_S):
                idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
                while server.open_connections < 2:  # the server has accepted them
                    await anyio.sleep(0.01)
                status = await anyio.to_thread.run_sync(lambda: _status(_post(port, 2, b"{}")))
                for s in idle:
                    s.close()
        finally:
            server.stop()
    assert status == 503


@pytest.mark.slow
def test_held_request_bodies_do_not_stay_in_memory_after_their_requests(tmp_path: Path) -> None:
    """100 requests hold 1 MB bodies at once (all but their last byte sent), then go away;
    the server's resident memory falls back near where it was (loosely: before freed
    bodies were given back, it kept most of them for good)."""
    held_mb = 100
    with http_server_process(tmp_path) as server:
        time.sleep(1)
        before = server.rss_kib()
        held = [_post(server.port, BODY, b"x" * (BODY - 1)) for _ in range(held_mb)]
        wait_until(  # the server has read them
            lambda: server.rss_kib() - before >= 0.8 * held_mb * 1024,
            "the server to read the held bodies",
            poll_s=0.2,
        )
        for s in held:
            s.close()
        # disconnects handled, freed pages given back (each second): wait for it; a server
        # that keeps the bodies fails after the hang guard
        wait_until(
            lambda: server.rss_kib() - before < held_mb / 2 * 1024,
            f"resident memory to fall below {held_mb // 2} MB over the start once the bodies went",
            poll_s=0.5,
        )
