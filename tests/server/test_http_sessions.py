"""Stateful MCP sessions over HTTP, per client (server/http_sessions.py), and who a
client is (raw_calls.owner_of): a known bearer token, else the remote address.

The session table is tested in front of a stand-in for the SDK's session manager (fast,
a fake clock); the attacks are replayed over real HTTP against the real server, a second
client connecting from another loopback address (127.0.0.2)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
import typer
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from pydantic import ValidationError
from support.hang_guard import HANG_GUARD_S
from support.http_server import free_port
from support.results import error_text, ok
from typer.testing import CliRunner

from taurec.clients.cli import serve as serve_cli
from taurec.server import app as server_app
from taurec.server.app import HttpServer
from taurec.server.http_guard import HttpGuard
from taurec.server.http_sessions import SessionLimits, SessionTable, TooManySessions
from taurec.server.raw_calls import OWNER_SCOPE_KEY, address_owner, owner_of, token_owner
from taurec.server.settings import HttpSettings, ServerSettings

TOKEN = "s3cret-token-0123456789"
HANDSHAKE = "2025-06-18"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": HANDSHAKE,
        "capabilities": {},
        "clientInfo": {"name": "flood", "version": "1"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class StandInManager:
    """Answers like the SDK's stateful session manager: a request without a session id
    opens one (200 and its id), a known id is served (DELETE ends it), an unknown one
    gets 404. Requests of `hold` wait until it is set."""

    def __init__(self) -> None:
        self.live: set[str] = set()
        self.hold = anyio.Event()
        self.hold.set()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.hold.wait()
        sid = dict(scope["headers"]).get(b"mcp-session-id", b"").decode()
        headers: list[tuple[bytes, bytes]] = []
        if not sid:
            sid = uuid.uuid4().hex
            self.live.add(sid)
            headers, status = [(b"mcp-session-id", sid.encode())], 200
        elif sid not in self.live:
            status = 404
        else:
            status = 200
            if scope["method"] == "DELETE":
                self.live.discard(sid)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"{}"})


def _scope(method: str = "POST", **headers: str) -> dict[str, Any]:
    return {
        "type": "http",
        "method": method,
        "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
    }


async def _call(table: SessionTable, app: Any, owner: str, scope: dict[str, Any]) -> int | str:
    """The status `app` answered through `table`, or "refused" for TooManySessions; the
    session id an opening got comes back in scope["opened"]."""
    answer: dict[str, Any] = {}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            for k, v in message["headers"]:
                if k == b"mcp-session-id":
                    scope["opened"] = v.decode()

    try:
        await table.serve(app, scope, receive, send, owner)
    except TooManySessions:
        return "refused"
    status: int = answer["status"]
    return status


async def _open(table: SessionTable, app: Any, owner: str) -> str:
    scope = _scope()
    assert await _call(table, app, owner, scope) == 200
    sid: str = scope["opened"]
    return sid


def _in(sid: str, method: str = "POST") -> dict[str, Any]:
    return _scope(method, mcp_session_id=sid, mcp_protocol_version=HANDSHAKE)


# --- the table -------------------------------------------------------------------------------


async def test_a_client_at_its_session_cap_is_refused_while_another_client_still_opens() -> None:
    table, app = SessionTable(max_per_client=2, idle_seconds=60), StandInManager()
    await _open(table, app, "address:a")
    await _open(table, app, "address:a")
    assert await _call(table, app, "address:a", _scope()) == "refused"
    await _open(table, app, "address:b")
    assert (table.held_by("address:a"), table.held_by("address:b"), table.count) == (2, 1, 3)


def test_the_refusal_names_the_limit_the_option_and_the_way_out() -> None:
    message = str(TooManySessions(100, 300, retry_after=12))
    assert "already holds 100 MCP sessions" in message
    assert "--max-sessions-per-client" in message and "DELETE" in message
    assert "300 s" in message and "--session-idle-timeout" in message


async def test_openings_in_flight_count_before_their_answers() -> None:
    table, app = SessionTable(max_per_client=2, idle_seconds=60), StandInManager()
    app.hold = anyio.Event()  # the SDK has not answered yet
    refused: list[int | str] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(_call, table, app, "address:a", _scope())
        tg.start_soon(_call, table, app, "address:a", _scope())
        await anyio.wait_all_tasks_blocked()
        refused.append(await _call(table, app, "address:a", _scope()))
        app.hold.set()
    assert refused == ["refused"] and table.held_by("address:a") == 2


async def test_an_opening_the_sdk_refuses_frees_its_place() -> None:
    table = SessionTable(max_per_client=1, idle_seconds=60)

    async def refusing(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 400, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    assert await _call(table, refusing, "address:a", _scope()) == 400
    assert table.held_by("address:a") == 0


async def test_a_deleted_session_frees_its_place() -> None:
    table, app = SessionTable(max_per_client=1, idle_seconds=60), StandInManager()
    sid = await _open(table, app, "address:a")
    assert await _call(table, app, "address:a", _in(sid, "DELETE")) == 200
    await _open(table, app, "address:a")


async def test_a_session_the_sdk_no_longer_knows_is_forgotten() -> None:
    table, app = SessionTable(max_per_client=1, idle_seconds=60), StandInManager()
    sid = await _open(table, app, "address:a")
    app.live.clear()  # ended in the SDK (expired, crashed)
    assert await _call(table, app, "address:a", _in(sid)) == 404
    assert table.held_by("address:a") == 0


async def test_an_idle_session_is_forgotten_after_the_timeout_and_not_before() -> None:
    clock = FakeClock()
    table, app = SessionTable(max_per_client=1, idle_seconds=60, clock=clock), StandInManager()
    sid = await _open(table, app, "address:a")
    clock.now += 59
    assert await _call(table, app, "address:a", _scope()) == "refused"
    assert await _call(table, app, "address:a", _in(sid)) == 200  # used: its clock restarts
    clock.now += 59
    assert table.held_by("address:a") == 1
    clock.now += 1
    assert table.held_by("address:a") == 0
    await _open(table, app, "address:a")


async def test_a_session_with_a_request_in_flight_is_never_idle() -> None:
    clock = FakeClock()
    table, app = SessionTable(max_per_client=1, idle_seconds=60, clock=clock), StandInManager()
    sid = await _open(table, app, "address:a")
    app.hold = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_call, table, app, "address:a", _in(sid, "GET"))  # a listening stream
        await anyio.wait_all_tasks_blocked()
        clock.now += 3600
        assert table.held_by("address:a") == 1
        app.hold.set()
    clock.now += 60
    assert table.held_by("address:a") == 0


async def test_a_live_session_the_table_forgot_counts_again_for_its_user() -> None:
    clock = FakeClock()
    table, app = SessionTable(max_per_client=1, idle_seconds=60, clock=clock), StandInManager()
    sid = await _open(table, app, "address:a")
    clock.now += 60
    assert table.held_by("address:a") == 0  # forgotten, while the SDK still holds it
    assert await _call(table, app, "address:a", _in(sid)) == 200
    assert table.held_by("address:a") == 1
    assert await _call(table, app, "address:a", _scope()) == "refused"


async def test_sessionless_requests_open_nothing_and_are_never_refused() -> None:
    table = SessionTable(max_per_client=1, idle_seconds=60)

    async def sessionless(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    for _ in range(5):
        scope = _scope(mcp_protocol_version="2026-07-28", mcp_session_id="made-up")
        assert await _call(table, sessionless, "address:a", scope) == 200
    assert table.count == 0


# --- owners ----------------------------------------------------------------------------------


class Request:
    def __init__(self, scope: dict[str, Any]) -> None:
        self.scope = scope


def test_the_owner_is_what_the_guard_decided_else_the_address() -> None:
    assert owner_of(Request({OWNER_SCOPE_KEY: token_owner(TOKEN)})) == token_owner(TOKEN)
    assert token_owner(TOKEN).startswith("token:") and TOKEN not in token_owner(TOKEN)
    unguarded = {"client": ("10.0.0.7", 5000), "headers": [(b"authorization", b"Bearer x")]}
    assert owner_of(Request(unguarded)) == address_owner(("10.0.0.7", 1)) == "address:10.0.0.7"
    assert owner_of(None) == owner_of(Request({})) == "open"


@pytest.mark.parametrize(
    ("token", "sent", "owner"),
    [
        (None, f"Bearer {TOKEN}", "address:127.0.0.9"),  # open: a token makes no client
        (None, "Bearer another-made-up-token", "address:127.0.0.9"),
        (None, None, "address:127.0.0.9"),
        (TOKEN, f"Bearer {TOKEN}", token_owner(TOKEN)),  # a known token is the client
    ],
)
async def test_the_guard_gives_each_request_its_owner(
    token: str | None, sent: str | None, owner: str
) -> None:
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope[OWNER_SCOPE_KEY])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    guard = HttpGuard(app, HttpSettings(auth_token=token))
    transport = httpx.ASGITransport(app=guard, client=("127.0.0.9", 4000))
    headers = {"authorization": sent} if sent else {}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as c:
        response = await c.post("/mcp", json={}, headers={**headers, "mcp-protocol-version": "x"})
    assert response.status_code == 200 and seen == [owner]


def test_one_client_may_not_hold_every_session() -> None:
    with pytest.raises(ValidationError, match="must be below max sessions"):
        SessionLimits(max_sessions=100, max_per_client=100)
    defaults = HttpSettings().sessions
    assert defaults.max_per_client * 10 <= defaults.max_sessions
    assert defaults.idle_seconds <= 600  # the SDK's own default is 1800


# --- over HTTP -------------------------------------------------------------------------------


@asynccontextmanager
async def _serving(tmp_path: Path, **http: Any) -> AsyncIterator[str]:
    """The real server on a free port, with `http` settings; yields its URL."""
    port = free_port()
    max_open = http.pop("max_open_per_client", 100)
    settings = ServerSettings(log_dir=tmp_path, max_open_per_client=max_open)
    server = HttpServer(settings, HttpSettings(port=port, sessions=SessionLimits(**http)))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        try:
            with anyio.fail_after(HANG_GUARD_S):
                yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.stop()


def _from(address: str, **headers: str) -> httpx.AsyncClient:
    """An HTTP client whose connections come from loopback `address`."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(transport=transport, headers={**MCP_HEADERS, **headers})


async def test_a_handshake_flood_fills_only_its_own_clients_sessions(tmp_path: Path) -> None:
    async with _serving(tmp_path, max_per_client=5, max_sessions=10) as url:
        async with _from("127.0.0.1") as flood:
            answers = [await flood.post(url, json=INITIALIZE) for _ in range(40)]
        async with _from("127.0.0.2") as other:
            second = await other.post(url, json=INITIALIZE)
        async with Client(url) as sessionless:  # the SDK's default protocol opens none
            tools = await sessionless.list_tools()
    statuses = [a.status_code for a in answers]
    assert statuses == [200] * 5 + [429] * 35
    refused = answers[-1].json()["error"]["message"]
    assert "already holds 5 MCP sessions" in refused and "--max-sessions-per-client" in refused
    assert int(answers[-1].headers["retry-after"]) >= 1
    assert second.status_code == 200 and second.headers["mcp-session-id"]
    assert tools.tools


async def test_a_deleted_session_frees_its_place_over_http(tmp_path: Path) -> None:
    serving = _serving(tmp_path, max_per_client=1, max_sessions=10)
    async with serving as url, _from("127.0.0.1") as client:
        sid = (await client.post(url, json=INITIALIZE)).headers["mcp-session-id"]
        assert (await client.post(url, json=INITIALIZE)).status_code == 429
        in_session = {"mcp-session-id": sid, "mcp-protocol-version": HANDSHAKE}
        assert (await client.delete(url, headers=in_session)).status_code < 400
        assert (await client.post(url, json=INITIALIZE)).status_code == 200


async def test_idle_sessions_are_closed_and_forgotten_after_the_timeout(tmp_path: Path) -> None:
    serving = _serving(tmp_path, max_per_client=2, max_sessions=10, idle_seconds=0.3)
    async with serving as url, _from("127.0.0.1") as client:
        first = await client.post(url, json=INITIALIZE)
        await client.post(url, json=INITIALIZE)
        while (await client.post(url, json=INITIALIZE)).status_code == 429:
            await anyio.sleep(0.05)  # until the idle ones are forgotten
        in_session = {"mcp-session-id": first.headers["mcp-session-id"]}
        listed = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        gone = await client.post(
            url, json=listed, headers={**in_session, "mcp-protocol-version": HANDSHAKE}
        )
    assert gone.status_code == 404  # the SDK closed it too


async def test_rotating_made_up_tokens_in_open_mode_is_still_one_client(tmp_path: Path) -> None:
    async def start(address: str, token: str) -> Any:
        transport = httpx2.AsyncHTTPTransport(local_address=address)
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(transport=transport, headers=headers) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await client.call_tool("start_episode", {"task_id": "t001"})

    async with _serving(tmp_path, max_open_per_client=2) as url:
        rotated = [await start("127.0.0.1", f"made-up-token-{i:04d}") for i in range(4)]
        elsewhere = await start("127.0.0.2", "made-up-token-0000")
    ok(rotated[0])
    ok(rotated[1])
    for refused in rotated[2:]:
        assert "you already have 2 open episodes" in error_text(refused)
    ok(elsewhere)


def test_taurec_serve_passes_the_session_limits_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[HttpSettings | None] = []
    monkeypatch.setattr(
        server_app, "run_server", lambda settings, transport, http, **_: seen.append(http)
    )
    app = typer.Typer()
    app.command()(serve_cli.serve)
    args = ["--transport", "http", "--max-sessions", "50", "--max-sessions-per-client", "4"]
    result = CliRunner().invoke(app, [*args, "--session-idle-timeout", "30"], env={})
    assert result.exit_code == 0, result.output
    (http,) = seen
    assert http is not None
    assert http.sessions == SessionLimits(max_sessions=50, max_per_client=4, idle_seconds=30)
    refused = CliRunner().invoke(
        app, [*args[:2], "--max-sessions-per-client", "9", "--max-sessions", "9"], env={}
    )
    assert refused.exit_code == 2 and "must be below max sessions" in refused.output


async def test_a_handshake_flood_spread_over_addresses_leaves_a_victim_a_session(
    tmp_path: Path,
) -> None:
    """The attack: one local user opens sessions from address after address of
    127.0.0.0/8, each within the per-client limit, until the server's table is full (10,000
    from 103 addresses; here 20 from 5): every other client's handshake got 503. Now the
    victim's opening crowds out the least recently used idle session of a client holding
    the most, whose next request gets 404."""
    async with _serving(tmp_path, max_per_client=4, max_sessions=20) as url:
        opened: list[tuple[str, str]] = []
        for n in range(2, 7):
            address = f"127.0.0.{n}"
            async with _from(address) as flood:
                for _ in range(5):
                    answer = await flood.post(url, json=INITIALIZE)
                    if answer.status_code == 200:
                        opened.append((address, answer.headers["mcp-session-id"]))
        assert len(opened) == 20  # the table is full
        async with _from("127.0.0.1") as victim:
            mine = await victim.post(url, json=INITIALIZE)
        assert mine.status_code == 200 and mine.headers["mcp-session-id"]
        listed = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        gone = []
        for address, sid in opened:
            async with _from(address) as flood:
                headers = {"mcp-session-id": sid, "mcp-protocol-version": HANDSHAKE}
                answer = await flood.post(url, json=listed, headers=headers)
                gone += [sid] if answer.status_code == 404 else []
        assert gone == [opened[0][1]]  # the least recently used, of a client holding 4
