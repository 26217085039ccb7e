"""Sealed runs on the server: the token decides the label, each planned episode can be
played once, nothing outside the plan can be started, and an episode answers only to the
token that started it. Attacks from the review, replayed over real HTTP on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client
from support.http_server import free_port

from taurec.catalog.errors import DataError
from taurec.clients.agents.base import outcome_of
from taurec.clients.runner.connection import Connection, open_client
from taurec.server.app import HttpServer
from taurec.server.episode_end import SHUTDOWN_DETAIL
from taurec.server.recommendation.service import Service
from taurec.server.settings import HttpSettings, ServerSettings
from taurec.tasks.runs.plan import RunPlan, new_plan, write_plan
from taurec.tasks.runs.register import REGISTER_NAME, read_register
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.signing import load_log_key

SUITE = load_suite("builtin")


def _plan(folder: Path, label: str, tasks: tuple[str, ...] = ("t001", "t002")) -> Path:
    plan = new_plan(
        label=label,
        suite_id=SUITE.id,
        suite_spec="builtin",
        suite_sha256=SUITE.sha256(),
        catalog_sha256=SUITE.catalog.sha256(),
        task_ids=tasks,
        trials=2,
    )
    path = folder / f"{label}.plan.json"
    write_plan(plan, path)
    return path


def _token(path: Path) -> str:
    return RunPlan.model_validate(orjson.loads(path.read_bytes())).token


@asynccontextmanager
async def _sealed(tmp_path: Path, *plans: Path) -> AsyncIterator[str]:
    port = free_port()
    server = HttpServer(
        ServerSettings(log_dir=tmp_path / "logs", plans=plans), HttpSettings(port=port)
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.stop()


@asynccontextmanager
async def _client(url: str, plan: Path) -> AsyncIterator[Client]:
    async with open_client(Connection("http", url=url, auth_token=_token(plan))) as client:
        yield client


async def _call(client: Client, name: str, **arguments: Any) -> Any:
    return outcome_of(await client.call_tool(name, arguments))


@pytest.fixture
def plans(tmp_path: Path) -> tuple[Path, Path]:
    return _plan(tmp_path, "victim"), _plan(tmp_path, "attacker")


async def test_the_token_decides_the_label(tmp_path: Path, plans: tuple[Path, Path]) -> None:
    victim, _ = plans
    async with _sealed(tmp_path, *plans) as url, _client(url, victim) as client:
        info = await _call(client, "server_info")
        chosen = await _call(client, "start_episode", task_id="t001", agent_label="someone")
        started = await _call(client, "start_episode", task_id="t001")
    assert info.data["sealed_label"] == "victim"
    assert chosen.is_error and "the label comes from your token" in chosen.text
    log = next((tmp_path / "logs").rglob("trial0-*.jsonl"))
    header = orjson.loads(log.read_bytes().splitlines()[0])
    assert not started.is_error
    assert (header["agent"]["label"], header["mode"]) == ("victim", "sealed")


async def test_a_planned_episode_can_be_played_once_and_nothing_else_at_all(
    tmp_path: Path, plans: tuple[Path, Path]
) -> None:
    """The practice oracle: no throw-away episodes to learn which titles the user takes."""
    victim, _ = plans
    async with _sealed(tmp_path, *plans) as url, _client(url, victim) as client:
        first = await _call(client, "start_episode", task_id="t001", trial=0)
        again = await _call(client, "start_episode", task_id="t001", trial=0)
        other_task = await _call(client, "start_episode", task_id="t003", trial=0)
        other_trial = await _call(client, "start_episode", task_id="t001", trial=7)
        seeded = await _call(client, "start_episode", task_id="t002", trial=0, seed=5)
        listed = await _call(client, "list_tasks")
    assert not first.is_error
    assert again.is_error and "already played" in again.text
    assert other_task.is_error and "not in this run's plan" in other_task.text
    assert other_trial.is_error and "not in this run's plan" in other_trial.text
    assert seeded.is_error and "cannot be chosen in a sealed run" in seeded.text
    left = {t["id"]: t["trials_left"] for t in listed.data["tasks"]}
    assert left == {"t001": [1], "t002": [0, 1]}


async def test_another_token_can_neither_use_the_label_nor_touch_the_episode(
    tmp_path: Path, plans: tuple[Path, Path]
) -> None:
    """Sabotage and hijack: the attacker knows the victim's label and episode id."""
    victim, attacker = plans
    async with _sealed(tmp_path, *plans) as url:
        async with _client(url, victim) as client:
            started = await _call(client, "start_episode", task_id="t001")
        episode_id = started.data["episode_id"]
        log = next((tmp_path / "logs").rglob(f"*{episode_id[:12]}.jsonl"))
        before = log.read_bytes()
        async with _client(url, attacker) as client:
            as_victim = await _call(client, "start_episode", task_id="t002", agent_label="victim")
            hijack = await _call(client, "recommend", episode_id=episode_id, item_id=None)
            peek = await _call(client, "get_user_history", episode_id=episode_id)
            aborted = await _call(
                client, "abort_episode", episode_id=episode_id, reason="agent_error"
            )
        unchanged = log.read_bytes()
    assert as_victim.is_error and "the label comes from your token" in as_victim.text
    for refused in (hijack, peek, aborted):
        assert refused.is_error and "unknown episode_id" in refused.text
    assert unchanged == before  # not even a rejected call was logged into it


async def test_requests_without_a_plan_token_are_refused(
    tmp_path: Path, plans: tuple[Path, Path]
) -> None:
    async with _sealed(tmp_path, *plans) as url:
        with pytest.raises(BaseExceptionGroup) as refused:
            async with open_client(Connection("http", url=url)) as client:
                await client.call_tool("list_tasks", {})
    assert "bearer token" in repr(refused.value)


async def test_the_register_records_every_start_and_end_signed(
    tmp_path: Path, plans: tuple[Path, Path]
) -> None:
    victim, _ = plans
    async with _sealed(tmp_path, *plans) as url, _client(url, victim) as client:
        started = await _call(client, "start_episode", task_id="t002", trial=1)
        await _call(client, "recommend", episode_id=started.data["episode_id"], item_id=None)
    run_id = RunPlan.model_validate(orjson.loads(victim.read_bytes())).run_id
    register = tmp_path / "logs" / run_id / REGISTER_NAME
    state = read_register(register.read_bytes(), load_log_key())
    assert state.problem is None
    assert state.plan is not None and "token" not in state.plan
    (attempt,) = state.attempts
    assert (attempt.task_id, attempt.trial, attempt.end_reason) == ("t002", 1, "abstained")
    log = register.parent / attempt.log
    assert attempt.log_chain is not None and log.read_bytes().rstrip().endswith(b'"}')
    forged = register.read_bytes().replace(b'"abstained"', b'"recommended"')
    assert "chain hash mismatch" in (read_register(forged, None).problem or "")


async def _service(tmp_path: Path, plan: Path) -> Service:
    return Service.create(ServerSettings(log_dir=tmp_path / "logs", plans=(plan,)))


async def test_only_episodes_the_server_cut_off_can_be_played_again(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "solo")
    service = await _service(tmp_path, plan)
    done = await service.start_episode("t001", 0)
    await service.recommend(done.episode_id, None, None)
    await service.start_episode("t001", 1)  # open when the server stops
    await service.start_episode("t002", 0)  # open when the server is killed (below)
    await service.close_all()  # ends both open ones: infra_error, "server shut down"
    restarted = await _service(tmp_path, plan)
    run = restarted.seals.runs[0] if restarted.seals else None
    assert run is not None
    assert run.remaining() == [("t002", 0), ("t001", 1), ("t002", 1)]
    assert not run.startable(("t001", 0))
    await restarted.start_episode("t001", 1)  # played again: a second attempt
    state = read_register(run.path.read_bytes(), load_log_key())
    attempts = [(a.task_id, a.trial, a.attempt, a.end_detail) for a in state.attempts]
    assert ("t001", 1, 1, SHUTDOWN_DETAIL) in attempts and ("t001", 1, 2, None) in attempts


async def test_a_start_without_an_end_is_marked_interrupted_on_restart(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "solo")
    service = await _service(tmp_path, plan)
    await service.start_episode("t002", 0)  # the process dies here: no end record
    restarted = await _service(tmp_path, plan)
    assert restarted.seals is not None
    run = restarted.seals.runs[0]
    state = read_register(run.path.read_bytes(), load_log_key())
    assert [a.interrupted for a in state.attempts] == [True]
    assert run.startable(("t002", 0))


async def test_a_damaged_or_foreign_register_stops_the_server(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "solo")
    service = await _service(tmp_path, plan)
    assert service.seals is not None
    register = service.seals.runs[0].path
    register.write_bytes(register.read_bytes().replace(b'"solo"', b'"oslo"'))
    with pytest.raises(DataError, match="run register is damaged"):
        await _service(tmp_path, plan)


async def test_a_plan_for_another_suite_is_refused(tmp_path: Path) -> None:
    plan = new_plan(
        label="x",
        suite_id="other",
        suite_spec="builtin",
        suite_sha256="0" * 64,
        catalog_sha256=SUITE.catalog.sha256(),
        task_ids=["t001"],
        trials=1,
    )
    write_plan(plan, tmp_path / "p.json")
    with pytest.raises(DataError, match="the plan is for suite 'other'"):
        await _service(tmp_path, tmp_path / "p.json")


async def test_an_open_server_refuses_a_label_that_is_not_plain_text(tmp_path: Path) -> None:
    from taurec.tasks.errors import ArgumentError

    service = Service.create(ServerSettings(log_dir=tmp_path))
    for label in ("[/bold]", "a|b\nc", "\x1b[31mred", "[conceal]scripted"):
        with pytest.raises(ArgumentError, match="agent_label"):
            await service.start_episode("t001", 0, None, label)
    started = await service.start_episode("t001", 0, None, "openai/gpt-4o-mini@t0")
    assert started.episode_id


async def test_a_ranking_server_tells_two_tokens_apart(tmp_path: Path) -> None:
    """Every kind's server finds the caller's plan by its token (here: ranking)."""
    ranking = load_suite("ranking:builtin")
    paths = []
    for label in ("victim", "attacker"):
        plan = new_plan(
            label=label,
            suite_id=ranking.id,
            suite_spec="ranking:builtin",
            suite_sha256=ranking.sha256(),
            catalog_sha256=ranking.catalog.sha256(),
            task_ids=[t.id for t in ranking.tasks[:2]],
            trials=1,
        )
        paths.append(tmp_path / f"{label}.json")
        write_plan(plan, paths[-1])
    port = free_port()
    settings = ServerSettings(
        suite="ranking:builtin", log_dir=tmp_path / "logs", plans=tuple(paths)
    )
    server = HttpServer(settings, HttpSettings(port=port))
    url = f"http://127.0.0.1:{port}/mcp"
    task_id = ranking.tasks[0].id
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        try:
            async with _client(url, paths[0]) as client:
                started = await _call(client, "start_episode", task_id=task_id)
            async with _client(url, paths[1]) as client:
                own = await _call(client, "start_episode", task_id=task_id)
                hijack = await _call(
                    client, "get_user_profile", episode_id=started.data["episode_id"]
                )
        finally:
            server.stop()
    assert not started.is_error and not own.is_error, (started.text, own.text)
    assert hijack.is_error and "unknown episode_id" in hijack.text
    labels = sorted(
        orjson.loads(p.read_bytes().split(b"\n", 1)[0])["agent"]["label"]
        for p in (tmp_path / "logs").rglob("*.jsonl")
    )
    assert labels == ["attacker", "victim"]


async def test_an_agent_cannot_make_its_own_episode_replayable(tmp_path: Path) -> None:
    """Only the server's own shutdown makes an attempt replayable: an abort that copies its
    words does not (the review's ranking-server replay)."""
    ranking = load_suite("ranking:builtin")
    task_id = ranking.tasks[0].id
    plan = new_plan(
        label="r",
        suite_id=ranking.id,
        suite_spec="ranking:builtin",
        suite_sha256=ranking.sha256(),
        catalog_sha256=ranking.catalog.sha256(),
        task_ids=[task_id],
        trials=1,
    )
    write_plan(plan, tmp_path / "r.json")
    settings = ServerSettings(
        suite="ranking:builtin", log_dir=tmp_path / "logs", plans=(tmp_path / "r.json",)
    )
    from taurec.server.app import build_server

    async with Client(build_server(settings)) as client:
        started = await _call(client, "start_episode", task_id=task_id)
        await _call(
            client,
            "abort_episode",
            episode_id=started.data["episode_id"],
            reason="infra_error",
            detail="server shut down",
        )
        again = await _call(client, "start_episode", task_id=task_id)
    assert again.is_error and "already played" in again.text


async def test_an_episode_the_server_cut_off_twice_is_not_played_a_third_time(
    tmp_path: Path,
) -> None:
    plan = _plan(tmp_path, "solo")
    for _ in range(2):
        service = await _service(tmp_path, plan)
        await service.start_episode("t001", 0)
        await service.close_all()  # the launcher closes stdin mid-episode
    last = await _service(tmp_path, plan)
    assert last.seals is not None and not last.seals.runs[0].startable(("t001", 0))


async def test_an_opening_that_fails_leaves_the_register_sound(tmp_path: Path) -> None:
    from taurec.server.recommendation.simulator import RuleBasedUser

    class Failing(RuleBasedUser):
        def opening(self) -> Any:
            raise RuntimeError("provider down")

    plan = _plan(tmp_path, "solo")
    settings = ServerSettings(log_dir=tmp_path / "logs", plans=(plan,))
    service = Service.create(settings, lambda task, catalog, seed: Failing(task, catalog, seed))
    with pytest.raises(Exception):  # noqa: B017 - whatever the failed start raises
        await service.start_episode("t001", 0)
    assert service.seals is not None
    state = read_register(service.seals.runs[0].path.read_bytes(), load_log_key())
    assert state.problem is None and state.attempts == []
    assert service.seals.runs[0].startable(("t001", 0))
