"""The ranking (and ppr) server's limits on open episodes, as the recommendation server's:
a cap per client and for the server, idle episodes ended by the sweep, and an episode
cut by a shutdown after its contestant saw tool outputs counted as played."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from support.ranking import write_ranking_suite

from taurec.server.episode_end import EpisodeEnd
from taurec.server.ranking.app import RankingService, ranking_server
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log


def _server(tmp_path: Path, **limits: object) -> tuple[object, RankingService, list]:
    suite = str(write_ranking_suite(tmp_path / "suite", n=4))
    settings = ServerSettings(suite=suite, log_dir=tmp_path / "logs", run_label="r", **limits)
    mcp, service = ranking_server(settings, load_suite(suite), None)
    assert isinstance(service, RankingService)
    return mcp, service, load_suite(suite).tasks


async def _start(client: Client, task_id: str):
    return await client.call_tool("start_episode", {"task_id": task_id})


async def test_a_client_past_its_quota_is_refused_until_it_finishes_one(tmp_path: Path):
    mcp, _, tasks = _server(tmp_path, max_open_per_client=2)
    async with Client(mcp) as client:
        first = await _start(client, tasks[0].id)
        assert not (await _start(client, tasks[1].id)).is_error
        refused = await _start(client, tasks[2].id)
        assert (
            refused.is_error and "limit per client (max_open_per_client)" in refused.content[0].text
        )
        episode_id = first.structured_content["episode_id"]
        ranking = list(tasks[0].candidates[:10])
        await client.call_tool("submit_ranking", {"episode_id": episode_id, "ranking": ranking})
        assert not (await _start(client, tasks[2].id)).is_error


async def test_the_server_cap_holds_whoever_asks(tmp_path: Path):
    mcp, _, tasks = _server(tmp_path, max_open_episodes=1, max_open_per_client=5)
    async with Client(mcp) as client:
        assert not (await _start(client, tasks[0].id)).is_error
        refused = await _start(client, tasks[1].id)
    assert refused.is_error and "already has 1 open episodes, its limit" in refused.content[0].text


async def test_an_idle_episode_is_ended_as_the_contestants_failure(tmp_path: Path):
    mcp, service, tasks = _server(tmp_path)
    now = [1000.0]
    service.limits._clock = lambda: now[0]
    async with Client(mcp) as client:
        started = await _start(client, tasks[0].id)
        episode_id = started.structured_content["episode_id"]
        now[0] += 50
        assert await service.expire_idle(60) == 0
        await client.call_tool("get_user_profile", {"episode_id": episode_id})  # a call: fresh
        now[0] += 59
        assert await service.expire_idle(60) == 0
        now[0] += 1
        assert await service.expire_idle(60) == 1
        after = await client.call_tool("get_user_profile", {"episode_id": episode_id})
    assert after.is_error and "has ended (agent_error)" in after.content[0].text
    (log,) = (tmp_path / "logs").rglob("*.jsonl")
    end = read_log(log).events[-1]
    assert end["reason"] == "agent_error" and end["detail"].startswith("idle timeout: ")
    assert service.limits.open_count == 0


@pytest.mark.parametrize(("calls", "replayable"), [(0, True), (1, False)])
async def test_a_shutdown_cut_is_replayable_only_before_any_tool_output(
    tmp_path: Path, calls: int, replayable: bool
):
    mcp, service, tasks = _server(tmp_path)
    cuts: list[EpisodeEnd] = []
    real_abort = service._abort

    async def record(episode_id, op, end):
        cuts.append(end)
        await real_abort(episode_id, op, end)

    service._abort = record  # type: ignore[method-assign]
    async with Client(mcp) as client:
        started = await _start(client, tasks[0].id)
        for _ in range(calls):
            await client.call_tool(
                "get_user_profile", {"episode_id": started.structured_content["episode_id"]}
            )
        assert await service.close_all() == 1
    (cut,) = cuts
    assert cut.reason == "infra_error" and cut.cut_by_server is replayable
