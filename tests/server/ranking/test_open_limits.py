"""The ranking (and ppr) server's limits on open episodes, as the recommendation server's:
a cap per client and for the server, idle episodes ended by the sweep, and, in a sealed
run, an episode cut by a shutdown after its contestant saw tool outputs counted as played
(in open mode, where any task may be replayed anyway, every cut is replayable)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from support.ranking import write_ranking_suite
from support.shutdown_cuts import cut_off, scored, start_again_after_restart

from taurec.clients.runner.plan import summarize_log
from taurec.server.episode_end import SHUTDOWN_DETAIL
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


async def _see_a_tool_output(client: Client, episode_id: str) -> None:
    assert not (await client.call_tool("get_user_profile", {"episode_id": episode_id})).is_error


async def _see_nothing(client: Client, episode_id: str) -> None:
    return None


async def test_in_a_sealed_run_a_cut_after_a_tool_output_is_a_played_failure(tmp_path: Path):
    """The attack: park an episode after a tool output, wait for an operator's restart,
    play it again knowing what it saw."""
    spec, logs = str(write_ranking_suite(tmp_path / "suite", n=4)), tmp_path / "logs"
    end = await cut_off(spec, logs, sealed=True, act=_see_a_tool_output)
    assert end["reason"] == "infra_error"
    assert end["detail"] == f"{SHUTDOWN_DETAIL} (after the contestant saw tool outputs: played)"
    again = await start_again_after_restart(spec, logs)
    assert again.is_error and "was already played in this sealed run" in again.text
    group, run, problems = scored(logs)
    assert run["counted"] == 1 and run["failed"] == {"never started": 3}
    assert group["infra_errors"] == 4 and group["passed"] == 0  # 3 never started, 1 cut
    assert f"infrastructure error: {end['detail']}" in problems


async def test_in_a_sealed_run_a_cut_before_any_tool_output_may_be_played_again(tmp_path: Path):
    spec, logs = str(write_ranking_suite(tmp_path / "suite", n=4)), tmp_path / "logs"
    end = await cut_off(spec, logs, sealed=True, act=_see_nothing)
    assert end["reason"] == "infra_error" and end["detail"] == SHUTDOWN_DETAIL
    again = await start_again_after_restart(spec, logs)
    assert not again.is_error, again.text


@pytest.mark.parametrize("act", [_see_nothing, _see_a_tool_output])
async def test_in_open_mode_a_shutdown_cut_is_always_replayable(tmp_path: Path, act):
    spec, logs = str(write_ranking_suite(tmp_path / "suite", n=4)), tmp_path / "logs"
    end = await cut_off(spec, logs, sealed=False, act=act)
    assert end["reason"] == "infra_error" and end["detail"] == SHUTDOWN_DETAIL
    (log,) = logs.rglob("*.jsonl")
    assert summarize_log(log).cut_off  # `taurec run --resume` plays it again
