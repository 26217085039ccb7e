"""Limits that keep one client from holding the server: open episodes per client (its
plan, its known bearer token, else its address; "open" outside HTTP), and idle expiry of
abandoned episodes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import typer
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from support.episodes import ITEMS, make_task
from support.hang_guard import HANG_GUARD_S
from support.http_server import free_port
from support.results import error_text, ok
from typer.testing import CliRunner

from taurec.catalog.store import Catalog
from taurec.clients.cli import serve as serve_cli
from taurec.server import app as server_app
from taurec.server.app import HttpServer
from taurec.server.recommendation.episodes import EpisodeStore, Seal
from taurec.server.recommendation.service import Service
from taurec.server.recommendation.simulator import UserReply
from taurec.server.run_facts import RunFacts
from taurec.server.settings import HttpSettings, ServerSettings
from taurec.tasks.errors import EpisodeError
from taurec.tasks.trajectory.format import SuiteRef
from taurec.tasks.trajectory.reader import read_log

CATALOG = Catalog.from_items(ITEMS)


class StandInUser:
    kind = "stand-in"

    def opening(self) -> str:
        return "Hi, I want a comedy."

    def respond(self, agent_text: str) -> UserReply:
        return UserReply(f"You said: {agent_text}")

    def react_to_commit(self, item_id: str | None) -> UserReply:
        return UserReply("Thanks!", accepted=item_id)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _store(tmp_path: Path, **kw: Any) -> EpisodeStore:
    facts = RunFacts(
        run_id="r1",
        suite=SuiteRef(id="builtin", spec="builtin"),
        catalog_sha256=CATALOG.sha256(),
        server_version="test",
        log_dir=tmp_path,
    )
    return EpisodeStore(CATALOG, lambda task, catalog, seed: StandInUser(), facts, **kw)


async def _start_as(store: EpisodeStore, owner: str) -> Any:
    return await store.start(make_task(), trial=0, seed=1, agent_label="a", owner=owner)


async def _start(store: EpisodeStore) -> Any:
    return await _start_as(store, "open")


# --- open episodes per client ----------------------------------------------------------------


async def test_a_client_over_its_quota_is_refused_while_another_still_starts(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, max_open_per_owner=2)
    await _start_as(store, "token:a")
    await _start_as(store, "token:a")
    with pytest.raises(EpisodeError) as refused:
        await _start_as(store, "token:a")
    assert "you already have 2 open episodes" in str(refused.value)
    assert "max_open_per_client" in str(refused.value) and "abort_episode" in str(refused.value)
    await _start_as(store, "token:b")  # another client is unaffected
    await _start_as(store, "open")
    assert (store.open_count_of("token:a"), store.open_count_of("token:b")) == (2, 1)


async def test_an_ended_episode_frees_its_clients_place(tmp_path: Path) -> None:
    store = _store(tmp_path, max_open_per_owner=1)
    first = await _start_as(store, "token:a")
    async with first.lock:
        await first.recommend(None, None, CATALOG)
    await _start_as(store, "token:a")
    assert store.open_count_of("token:a") == 1


async def test_a_sealed_episode_counts_toward_its_plans_quota(tmp_path: Path) -> None:
    store = _store(tmp_path, max_open_per_owner=1)
    seal = Seal(run_id="plan-1", plan_id="ab" * 16, on_end=lambda episode: None)
    episode = await store.start(make_task(), trial=0, seed=1, agent_label="a", seal=seal)
    assert episode.owner == "plan:" + "ab" * 16 and store.open_count_of(episode.owner) == 1
    with pytest.raises(EpisodeError, match="max_open_per_client"):
        await store.start(make_task(), trial=1, seed=1, agent_label="a", seal=seal)
    await _start_as(store, "open")  # an open-mode client is another client


async def test_over_http_one_client_fills_its_quota_and_another_client_still_starts(
    tmp_path: Path,
) -> None:
    """Over HTTP, an open server's client is its address (see test_http_sessions.py for
    rotated tokens); the second client connects from another loopback address."""
    port = free_port()
    server = HttpServer(
        ServerSettings(log_dir=tmp_path, max_open_per_client=2), HttpSettings(port=port)
    )
    url = f"http://127.0.0.1:{port}/mcp"

    async def start(address: str) -> Any:
        transport = httpx2.AsyncHTTPTransport(local_address=address)
        async with (
            httpx2.AsyncClient(transport=transport) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await client.call_tool("start_episode", {"task_id": "t001"})

    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        try:
            with anyio.fail_after(HANG_GUARD_S):
                filled = [await start("127.0.0.1") for _ in range(2)]
                refused = await start("127.0.0.1")
                other = await start("127.0.0.2")
        finally:
            server.stop()
    for result in filled:
        ok(result)
    assert "you already have 2 open episodes" in error_text(refused)
    ok(other)


# --- idle expiry -----------------------------------------------------------------------------


async def test_an_episode_without_a_call_for_the_timeout_is_ended_as_idle(tmp_path: Path) -> None:
    clock = FakeClock()
    store = _store(tmp_path, clock=clock)
    episode = await _start(store)
    clock.now += 59
    assert await store.expire_idle(60) == 0
    clock.now += 1
    assert await store.expire_idle(60) == 1
    end = read_log(episode.log_path).events[-1]
    assert end["type"] == "end" and end["reason"] == "agent_error"
    assert end["detail"] == "idle timeout: no call for 60 s"
    with pytest.raises(EpisodeError, match=r"has ended \(agent_error\).*idle_timeout_seconds"):
        store.get(episode.id)
    assert store.open_count == 0


async def test_a_call_resets_the_idle_clock(tmp_path: Path) -> None:
    clock = FakeClock()
    store = _store(tmp_path, clock=clock)
    episode = await _start(store)
    clock.now += 50
    store.get(episode.id)  # a call addresses it
    clock.now += 50
    assert await store.expire_idle(60) == 0
    assert episode.end is None


async def test_an_episode_with_a_step_in_flight_is_not_expired(tmp_path: Path) -> None:
    clock = FakeClock()
    store = _store(tmp_path, clock=clock)
    episode = await _start(store)
    clock.now += 3600
    async with episode.lock:  # a slow step holds the lock
        assert await store.expire_idle(60) == 0
    assert episode.end is None
    assert await store.expire_idle(60) == 1


async def test_an_expired_episode_frees_its_clients_place(tmp_path: Path) -> None:
    clock = FakeClock()
    store = _store(tmp_path, clock=clock, max_open_per_owner=1)
    await _start_as(store, "token:a")
    clock.now += 61
    await store.expire_idle(60)
    await _start_as(store, "token:a")


async def test_the_sweep_ends_abandoned_episodes_while_it_runs(tmp_path: Path) -> None:
    service = Service.create(ServerSettings(log_dir=tmp_path, idle_timeout_seconds=0.05))
    started = await service.start_episode("t001")
    (path,) = tmp_path.rglob("*.jsonl")
    async with anyio.create_task_group() as tg:
        tg.start_soon(service.sweep_idle)
        with anyio.fail_after(HANG_GUARD_S):
            while read_log(path).events[-1]["type"] != "end":
                await anyio.sleep(0.02)
        tg.cancel_scope.cancel()
    assert read_log(path).events[-1]["detail"].startswith("idle timeout: ")
    with pytest.raises(EpisodeError, match=r"has ended \(agent_error\)"):
        await service.send_message(started.episode_id, "hi")


async def test_the_http_server_runs_the_idle_sweep(tmp_path: Path) -> None:
    port = free_port()
    settings = ServerSettings(log_dir=tmp_path, idle_timeout_seconds=0.2)
    server = HttpServer(settings, HttpSettings(port=port))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        try:
            with anyio.fail_after(HANG_GUARD_S):
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    ok(await client.call_tool("start_episode", {"task_id": "t001"}))
                (path,) = tmp_path.rglob("*.jsonl")
                while read_log(path).events[-1]["type"] != "end":
                    await anyio.sleep(0.05)
        finally:
            server.stop()
    end = read_log(path).events[-1]
    assert (end["reason"], end["detail"]) == ("agent_error", "idle timeout: no call for 0.2 s")


def test_idle_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="idle_timeout_seconds"):
        ServerSettings(idle_timeout_seconds=0)


def test_taurec_serve_passes_the_limits_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[ServerSettings, HttpSettings | None]] = []
    monkeypatch.setattr(
        server_app,
        "run_server",
        lambda settings, transport, http, **_: seen.append((settings, http)),
    )
    app = typer.Typer()
    app.command()(serve_cli.serve)
    args = ["--transport", "http", "--max-open-per-client", "3", "--idle-timeout", "90"]
    args += ["--max-connections", "50", "--keep-alive", "7", "--max-header-bytes", "8192"]
    result = CliRunner().invoke(app, args, env={})
    assert result.exit_code == 0, result.output
    ((settings, http),) = seen
    assert (settings.max_open_per_client, settings.idle_timeout_seconds) == (3, 90.0)
    assert http is not None
    assert (http.max_connections, http.keep_alive_seconds, http.max_header_bytes) == (50, 7, 8192)
