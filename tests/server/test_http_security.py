"""HTTP security of `taurec serve --transport http`: DNS-rebinding protection (Host and
Origin), the optional bearer token, the request-size limit, and the loopback default.

The guard is tested in front of a stand-in app (fast, no sockets); one test runs the real
server in process, reached the way `taurec run --transport http` reaches it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import typer
from mcp import MCPError
from pydantic import ValidationError
from support.http_server import free_port
from typer.testing import CliRunner

from taurec.clients.cli import serve as serve_cli
from taurec.clients.runner.connection import Connection, open_client
from taurec.server import app as server_app
from taurec.server.app import HttpServer
from taurec.server.defaults import AUTH_TOKEN_ENV
from taurec.server.http_guard import HttpGuard
from taurec.server.settings import HttpSettings, ServerSettings

TOKEN = "s3cret-token-0123456789"


class StandIn:
    """The app behind the guard: records what reached it and answers 200."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.bodies.append(body)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def _guarded(**settings: Any) -> tuple[httpx.AsyncClient, StandIn]:
    app = StandIn()
    guard = HttpGuard(app, HttpSettings(**settings))
    base = f"http://{settings.get('host', '127.0.0.1')}:8000"
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=guard), base_url=base), app


def _message(response: httpx.Response) -> str:
    assert response.headers["content-type"] == "application/json"
    message: str = response.json()["error"]["message"]
    return message


# --- DNS rebinding: Host and Origin ----------------------------------------------------------


async def test_a_foreign_host_header_is_refused_with_421() -> None:
    client, app = _guarded()
    async with client:
        response = await client.post("/mcp", headers={"Host": "evil.example:8000"}, content=b"{}")
    assert response.status_code == 421
    assert "evil.example" in _message(response) and "localhost" in _message(response)
    assert app.bodies == []


async def test_a_foreign_origin_is_refused_with_403() -> None:
    client, app = _guarded()
    async with client:
        response = await client.post(
            "/mcp", headers={"Origin": "http://evil.example"}, content=b"{}"
        )
    assert response.status_code == 403
    assert "http://evil.example" in _message(response)
    assert app.bodies == []


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "127.0.0.1:8000"},
        {"Host": "localhost:8000", "Origin": "http://localhost:6274"},
        {"Host": "[::1]:8000"},
    ],
)
async def test_loopback_names_pass_on_a_loopback_server(headers: dict[str, str]) -> None:
    client, app = _guarded()
    async with client:
        response = await client.post("/mcp", headers=headers, content=b"{}")
    assert response.status_code == 200 and app.bodies == [b"{}"]


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("10.1.2.3:8000", 200),
        ("bench.example.org", 200),
        ("127.0.0.1:8000", 421),
        ("evil.example", 421),
    ],
)
async def test_a_non_loopback_server_accepts_its_own_names_only(host: str, status: int) -> None:
    client, _ = _guarded(host="10.1.2.3", auth_token=TOKEN, allowed_hosts=("bench.example.org",))
    async with client:
        headers = {"Host": host, "Authorization": f"Bearer {TOKEN}"}
        response = await client.post("/mcp", headers=headers, content=b"{}")
    assert response.status_code == status


async def test_a_wildcard_bind_accepts_loopback_and_allowed_names_only() -> None:
    client, _ = _guarded(host="0.0.0.0", auth_token=TOKEN, allowed_hosts=("bench.lan",))
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with client:
        statuses = [
            (await client.post("/mcp", headers={"Host": host, **auth}, content=b"{}")).status_code
            for host in ("127.0.0.1:8000", "bench.lan:8000", "0.0.0.0:8000", "evil.example")
        ]
    assert statuses == [200, 200, 421, 421]


# --- bearer token ----------------------------------------------------------------------------


async def test_a_request_without_the_token_gets_401_and_a_bearer_challenge() -> None:
    client, app = _guarded(auth_token=TOKEN)
    async with client:
        response = await client.post("/mcp", content=b"{}")
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "Authorization: Bearer" in _message(response) and AUTH_TOKEN_ENV in _message(response)
    assert app.bodies == []


async def test_a_wrong_token_gets_401_and_is_not_echoed() -> None:
    client, app = _guarded(auth_token=TOKEN)
    async with client:
        wrong = "x" * len(TOKEN)
        response = await client.post(
            "/mcp", headers={"Authorization": f"Bearer {wrong}"}, content=b"{}"
        )
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    assert wrong not in response.text and TOKEN not in response.text
    assert app.bodies == []


async def test_the_right_token_passes() -> None:
    client, app = _guarded(auth_token=TOKEN)
    async with client:
        response = await client.post(
            "/mcp", headers={"Authorization": f"bearer {TOKEN}"}, content=b"{}"
        )
    assert response.status_code == 200 and app.bodies == [b"{}"]


# --- request size ----------------------------------------------------------------------------


async def test_a_body_declared_too_big_gets_413_naming_the_limit() -> None:
    client, app = _guarded(max_request_bytes=1024)
    async with client:
        response = await client.post("/mcp", content=b"x" * 1025)
    assert response.status_code == 413
    assert "1025 bytes" in _message(response) and "at most 1024" in _message(response)
    assert app.bodies == []


async def test_a_streamed_body_without_a_length_is_counted_too() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(5):
            yield b"x" * 300

    client, app = _guarded(max_request_bytes=1024)
    async with client:
        response = await client.post("/mcp", content=chunks())
    assert response.status_code == 413 and "over 1024 bytes" in _message(response)
    assert app.bodies == []


async def test_a_body_at_the_limit_reaches_the_app_whole() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for part in (b"a" * 512, b"b" * 512):
            yield part

    client, app = _guarded(max_request_bytes=1024)
    async with client:
        response = await client.post("/mcp", content=chunks())
    assert response.status_code == 200 and app.bodies == [b"a" * 512 + b"b" * 512]


# --- settings and the command line -----------------------------------------------------------


def test_a_non_loopback_host_without_a_token_is_refused() -> None:
    with pytest.raises(ValidationError, match="--auth-token") as caught:
        HttpSettings(host="0.0.0.0")
    assert "--allow-remote" in str(caught.value)


@pytest.mark.parametrize("token", ["short", "has a space in it 0123"])
def test_a_weak_or_malformed_token_is_refused(token: str) -> None:
    with pytest.raises(ValidationError, match="at least 16 visible ASCII"):
        HttpSettings(auth_token=token)


def test_the_token_never_shows_in_the_settings_repr() -> None:
    assert TOKEN not in repr(HttpSettings(auth_token=TOKEN))
    assert TOKEN not in repr(Connection("http", url="http://127.0.0.1:1/mcp", auth_token=TOKEN))


def _serve_app(monkeypatch: pytest.MonkeyPatch) -> tuple[typer.Typer, list[Any]]:
    seen: list[Any] = []
    monkeypatch.setattr(
        server_app, "run_server", lambda settings, transport, http, **_: seen.append(http)
    )
    app = typer.Typer()
    app.command()(serve_cli.serve)
    return app, seen


def test_serve_refuses_a_remote_host_without_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    app, seen = _serve_app(monkeypatch)
    result = CliRunner().invoke(app, ["--transport", "http", "--host", "0.0.0.0"], env={})
    assert result.exit_code == 2 and "--allow-remote" in result.output and seen == []


def test_serve_warns_when_told_to_serve_remotely_without_a_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, seen = _serve_app(monkeypatch)
    args = ["--transport", "http", "--host", "0.0.0.0", "--allow-remote"]
    result = CliRunner().invoke(app, args, env={AUTH_TOKEN_ENV: ""})
    assert result.exit_code == 0, result.output
    assert "warning" in result.output and "without an auth token" in result.output
    assert seen[0].host == "0.0.0.0"


def test_serve_reads_the_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    app, seen = _serve_app(monkeypatch)
    result = CliRunner().invoke(app, ["--transport", "http"], env={AUTH_TOKEN_ENV: TOKEN})
    assert result.exit_code == 0, result.output
    assert seen[0].token == TOKEN and TOKEN not in result.output


# --- end to end ------------------------------------------------------------------------------


async def test_the_served_app_is_guarded_and_the_runner_sends_the_token(tmp_path: Path) -> None:
    port = free_port()
    server = HttpServer(ServerSettings(log_dir=tmp_path), HttpSettings(port=port, auth_token=TOKEN))
    url = f"http://127.0.0.1:{port}/mcp"
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        try:
            async with httpx.AsyncClient() as raw:
                foreign_host = await raw.post(url, headers={**auth, "Host": "evil.example"})
                foreign_origin = await raw.post(
                    url, headers={**auth, "Origin": "http://evil.example"}
                )
            async with open_client(Connection("http", url=url, auth_token=TOKEN)) as client:
                info = await client.call_tool("server_info", {})
            with pytest.raises(BaseExceptionGroup) as refused:
                async with open_client(Connection("http", url=url)) as client:
                    await client.call_tool("server_info", {})
        finally:
            server.stop()
    assert (foreign_host.status_code, foreign_origin.status_code) == (421, 403)
    assert not info.is_error and (info.structured_content or {})["name"] == "taurec"
    (error,) = _leaves(refused.value)
    assert isinstance(error, MCPError) and "requires a bearer token" in str(error)


def _leaves(group: BaseException) -> list[BaseException]:
    if isinstance(group, BaseExceptionGroup):
        return [leaf for inner in group.exceptions for leaf in _leaves(inner)]
    return [group]
