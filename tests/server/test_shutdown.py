"""Graceful shutdown: a stopped server lets calls in flight finish and ends every episode
still open (infra_error, "server shut down"), so no log is left without its end record."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp import Client, StdioServerParameters
from support.hang_guard import HANG_GUARD_S
from support.http_server import free_port, http_server_process

from taurec.catalog.store import Catalog
from taurec.server.app import HttpServer
from taurec.server.episode_end import SHUTDOWN_DETAIL
from taurec.server.recommendation.service import Service
from taurec.server.recommendation.simulator import UserReply
from taurec.server.settings import HttpSettings, ServerSettings
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import EndReason
from taurec.tasks.trajectory.reader import read_log


def _ends(log_dir: Path) -> list[dict[str, Any]]:
    """The last event of every log under `log_dir`."""
    return [read_log(path).events[-1] for path in sorted(log_dir.rglob("*.jsonl"))]


async def _start(client: Client, task_id: str = "t001") -> str:
    started = await client.call_tool("start_episode", {"task_id": task_id})
    assert not started.is_error, started.content
    return str((started.structured_content or {})["episode_id"])


def test_sigterm_stops_the_http_server_with_exit_0_and_closes_open_episodes(
    tmp_path: Path,
) -> None:
    with http_server_process(tmp_path) as server:

        async def start_and_terminate() -> None:
            async with Client(server.url) as client:
                await _start(client, "t001")
                await _start(client, "t002")
                server.proc.send_signal(signal.SIGTERM)
                returncode = await anyio.to_thread.run_sync(server.proc.wait, HANG_GUARD_S)
            assert returncode == 0, server.stderr()

        anyio.run(start_and_terminate)
    ends = _ends(tmp_path)
    assert len(ends) == 2
    assert all(e["type"] == "end" and e["reason"] == "infra_error" for e in ends), ends
    assert {e["detail"] for e in ends} == {SHUTDOWN_DETAIL}


class GatedUser:
    """A simulated user whose first reply waits until the test releases it."""

    kind = "gated"

    def __init__(self) -> None:
        self.replying = threading.Event()
        self.release = threading.Event()

    def opening(self) -> str:
        return "Hi, I want a comedy."

    def respond(self, agent_text: str) -> UserReply:
        self.replying.set()
        self.release.wait(HANG_GUARD_S)
        return UserReply("Something light, please.")

    def react_to_commit(self, item_id: str | None) -> UserReply:
        return UserReply("Thanks!", accepted=item_id)


async def test_a_call_in_flight_at_shutdown_finishes_before_its_episode_is_closed(
    tmp_path: Path,
) -> None:
    user = GatedUser()

    def make_user(task: RecommendationTask, catalog: Catalog, seed: int) -> GatedUser:
        return user

    server = HttpServer(
        ServerSettings(log_dir=tmp_path), HttpSettings(port=free_port()), make_user=make_user
    )
    replies: list[Any] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        async with Client(server.http.url) as client:
            eid = await _start(client)

            async def say() -> None:
                arguments = {"episode_id": eid, "text": "What do you feel like?"}
                replies.append(await client.call_tool("send_message", arguments))

            tg.start_soon(say)
            await anyio.to_thread.run_sync(user.replying.wait, HANG_GUARD_S)
            server.stop()
            while not server.guard.closing:
                await anyio.sleep(0.01)
            user.release.set()
            while not replies:
                await anyio.sleep(0.01)
    (reply,) = replies
    assert not reply.is_error, reply.content
    assert (reply.structured_content or {})["reply"] == "Something light, please."
    events = read_log(next(tmp_path.rglob("*.jsonl"))).events
    assert [e["type"] for e in events] == ["user_message", "agent_message", "user_message", "end"]
    assert (events[-1]["reason"], events[-1]["detail"]) == ("infra_error", SHUTDOWN_DETAIL)


async def test_closing_stdin_ends_the_open_episodes(tmp_path: Path) -> None:
    serve = ["-m", "taurec.clients.cli.serve", "--log-dir", str(tmp_path)]
    async with Client(StdioServerParameters(command=sys.executable, args=serve)) as client:
        await _start(client)
    (end,) = _ends(tmp_path)
    assert (end["type"], end["reason"], end["detail"]) == ("end", "infra_error", SHUTDOWN_DETAIL)


async def test_close_all_ends_only_the_episodes_still_open(tmp_path: Path) -> None:
    service = Service.create(ServerSettings(log_dir=tmp_path))
    finished = await service.start_episode("t001")
    await service.abort(finished.episode_id, EndReason.AGENT_ERROR, "gave up")
    await service.start_episode("t002")
    await service.start_episode("t003")
    assert await service.close_all() == 2
    assert await service.close_all() == 0
    reasons = sorted((e["reason"], e.get("detail")) for e in _ends(tmp_path))
    assert reasons == [
        ("agent_error", "aborted: gave up"),
        ("infra_error", SHUTDOWN_DETAIL),
        ("infra_error", SHUTDOWN_DETAIL),
    ]
