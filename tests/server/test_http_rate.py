"""Requests per second per client over HTTP (server/http_rate.py): a token bucket per
owner, checked by the guard before a request's body is read or the MCP SDK sees it.

The buckets are tested with a fake clock; the guard in front of a stand-in app; the limit
over real HTTP against the real server, a second client connecting from another loopback
address (127.0.0.2); and an honest `taurec run --concurrency 8` against the defaults."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import typer
from mcp import Client
from mcp_types.version import LATEST_PROTOCOL_VERSION
from pydantic import ValidationError
from support.hang_guard import HANG_GUARD_S
from support.http_server import free_port
from typer.testing import CliRunner

from taurec.clients.cli import serve as serve_cli
from taurec.server import app as server_app
from taurec.server import http_rate
from taurec.server.app import HttpServer
from taurec.server.http_guard import HttpGuard
from taurec.server.http_rate import RateLimits, RequestRate, TooManyRequests
from taurec.server.settings import HttpSettings, ServerSettings

TAUREC = [sys.executable, "-c", "from taurec.clients.cli.main import main; main()"]
#: A sessionless tools/list, as the MCP SDK's client sends it by default.
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": LATEST_PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}
LISTED = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}}
MCP_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    "mcp-method": "tools/list",
}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _refused(rate: RequestRate, owner: str) -> bool:
    try:
        rate.take(owner)
    except TooManyRequests:
        return True
    return False


# --- the buckets -----------------------------------------------------------------------------


def test_a_burst_passes_then_one_request_a_token_as_the_bucket_refills() -> None:
    clock = FakeClock()
    rate = RequestRate(RateLimits(per_second=10, burst=5), clock=clock)
    assert [_refused(rate, "address:a") for _ in range(6)] == [False] * 5 + [True]
    clock.now += 0.1  # one token back
    assert [_refused(rate, "address:a") for _ in range(2)] == [False, True]
    clock.now += 0.25  # two and a half
    assert [_refused(rate, "address:a") for _ in range(3)] == [False, False, True]


def test_one_clients_refusals_leave_another_clients_bucket_full() -> None:
    rate = RequestRate(RateLimits(per_second=1, burst=2), clock=FakeClock())
    assert [_refused(rate, "address:a") for _ in range(4)] == [False, False, True, True]
    assert [_refused(rate, "address:b") for _ in range(3)] == [False, False, True]


def test_retry_after_is_the_whole_seconds_until_a_token_is_there() -> None:
    clock = FakeClock()
    rate = RequestRate(RateLimits(per_second=0.25, burst=1), clock=clock)
    rate.take("address:a")
    clock.now += 1.5  # 0.375 of a token: 2.5 s to go
    with pytest.raises(TooManyRequests) as refused:
        rate.take("address:a")
    assert refused.value.retry_after == 3
    fast = RequestRate(RateLimits(per_second=1000, burst=1), clock=clock)
    fast.take("address:a")
    with pytest.raises(TooManyRequests) as soon:
        fast.take("address:a")
    assert soon.value.retry_after == 1  # never 0: a client should wait at all


def test_the_refusal_names_the_limit_the_options_and_the_way_out() -> None:
    message = str(TooManyRequests(RateLimits(per_second=50, burst=80), 0.02))
    assert "more than 50 requests a second (bursts of 80)" in message
    assert "--requests-per-second" in message and "--request-burst" in message
    assert "Retry-After" in message


def test_a_client_idle_for_the_refill_time_is_dropped_and_starts_again_full() -> None:
    clock = FakeClock()
    rate = RequestRate(RateLimits(per_second=2, burst=4), clock=clock)  # 2 s to refill
    for _ in range(4):
        rate.take("address:a")
    clock.now += 1.9
    assert len(rate) == 1
    clock.now += 0.1
    assert len(rate) == 0
    assert [_refused(rate, "address:a") for _ in range(5)] == [False] * 4 + [True]


def test_the_bucket_table_stays_bounded_under_many_clients() -> None:
    clock = FakeClock()
    rate = RequestRate(RateLimits(per_second=1, burst=10), max_clients=1000, clock=clock)
    for i in range(20_000):  # many addresses within one refill time (10 s)
        clock.now += 0.0001
        rate.take(f"address:10.0.{i // 256}.{i % 256}")
    assert len(rate) == 1000  # the least recently used went
    clock.now += 10
    assert len(rate) == 0  # and every bucket that refilled
    assert http_rate.MAX_CLIENTS <= 100_000


def test_a_recently_used_client_is_not_the_one_dropped_at_the_cap() -> None:
    clock = FakeClock()
    rate = RequestRate(RateLimits(per_second=1, burst=2), max_clients=3, clock=clock)
    for owner in ("address:a", "address:b", "address:c"):
        rate.take(owner)
    rate.take("address:a")  # used again: now the most recent
    rate.take("address:d")  # the cap: b, the least recently used, goes
    assert _refused(rate, "address:a")  # a's bucket was kept (2 taken)
    assert not _refused(rate, "address:b")  # b starts again full


def test_bad_rate_settings_are_refused_naming_the_field() -> None:
    with pytest.raises(ValidationError, match="per_second"):
        RateLimits(per_second=0)
    with pytest.raises(ValidationError, match="burst"):
        RateLimits(burst=0)
    assert HttpSettings().rate == RateLimits()


# --- the guard -------------------------------------------------------------------------------


async def test_a_request_over_the_rate_never_reaches_the_app_and_its_body_is_not_read() -> None:
    reached: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    settings = HttpSettings(rate=RateLimits(per_second=0.01, burst=2))
    guard = HttpGuard(app, settings)
    transport = httpx.ASGITransport(app=guard, client=("127.0.0.9", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as c:
        answers = [await c.post("/mcp", content=b"not json") for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 429, 429]
    assert reached == [b"not json"] * 2
    refused = answers[-1]
    assert refused.headers["content-type"] == "application/json"
    assert int(refused.headers["retry-after"]) >= 1
    body = refused.json()
    assert body["jsonrpc"] == "2.0" and body["error"]["code"] == -32600
    assert "requests a second" in body["error"]["message"]


# --- over HTTP -------------------------------------------------------------------------------


@asynccontextmanager
async def _serving(tmp_path: Path, rate: RateLimits) -> AsyncIterator[HttpServer]:
    """The real server on a free port with `rate`."""
    server = HttpServer(ServerSettings(log_dir=tmp_path), HttpSettings(port=free_port(), rate=rate))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        try:
            yield server
        finally:
            server.stop()


def _from(address: str) -> httpx.AsyncClient:
    """An HTTP client whose connections come from loopback `address`."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(transport=transport, headers=MCP_HEADERS)


async def test_a_client_over_its_rate_gets_429_while_another_client_is_served(
    tmp_path: Path,
) -> None:
    async with _serving(tmp_path, RateLimits(per_second=0.1, burst=5)) as server:
        url = server.http.url
        with anyio.fail_after(HANG_GUARD_S):
            async with _from("127.0.0.1") as flood:
                answers = [await flood.post(url, json=LISTED) for _ in range(12)]
            async with _from("127.0.0.2") as other:
                second = await other.post(url, json=LISTED)
    statuses = [a.status_code for a in answers]
    assert statuses == [200] * 5 + [429] * 7
    refused = answers[-1]
    assert int(refused.headers["retry-after"]) >= 1
    assert "--requests-per-second" in refused.json()["error"]["message"]
    assert second.status_code == 200 and second.json()["result"]["tools"]


@pytest.mark.slow
async def test_an_honest_run_with_concurrency_8_is_never_limited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusals: list[str] = []
    take = RequestRate.take

    def counted(self: RequestRate, owner: str) -> None:
        try:
            take(self, owner)
        except TooManyRequests:
            refusals.append(owner)
            raise

    monkeypatch.setattr(RequestRate, "take", counted)
    async with _serving(tmp_path, RateLimits()) as server:
        run = [*TAUREC, "run", "--transport", "http", "--url", server.http.url]
        run += ["--concurrency", "8", "--trials", "2", "--log-dir", str(tmp_path)]
        with anyio.fail_after(HANG_GUARD_S * 4):
            done = await anyio.run_process(run, check=False)
        async with Client(server.http.url) as client:  # still served afterwards
            tools = await client.list_tools()
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert refusals == [] and tools.tools


def test_taurec_serve_passes_the_rate_limits_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[HttpSettings | None] = []
    monkeypatch.setattr(
        server_app, "run_server", lambda settings, transport, http, **_: seen.append(http)
    )
    app = typer.Typer()
    app.command()(serve_cli.serve)
    args = ["--transport", "http", "--requests-per-second", "40", "--request-burst", "60"]
    result = CliRunner().invoke(app, args, env={})
    assert result.exit_code == 0, result.output
    (http,) = seen
    assert http is not None and http.rate == RateLimits(per_second=40, burst=60)
    refused = CliRunner().invoke(app, [*args[:2], "--requests-per-second", "0"], env={})
    assert refused.exit_code == 2 and "per_second" in refused.output
