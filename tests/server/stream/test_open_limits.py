"""The stream server's limits, shared with the ranking server's (server/open_limits.py): a
cap per client, idle streams ended by the sweep, and, in a sealed run, a stream cut by a
shutdown after its contestant saw feedback counted as played (in open mode, where any
task may be replayed anyway, every cut is replayable)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from support.shutdown_cuts import cut_off, scored, start_again_after_restart

from taurec.clients.runner.plan import summarize_log
from taurec.server.episode_end import SHUTDOWN_DETAIL
from taurec.server.settings import ServerSettings
from taurec.server.stream.app import stream_server
from taurec.server.stream.service import StreamService
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

SUITE = "stream:builtin"


def _server(tmp_path: Path, **limits: object) -> tuple[object, StreamService, list]:
    settings = ServerSettings(suite=SUITE, log_dir=tmp_path, run_label="r", **limits)
    suite = load_suite(SUITE)
    mcp, service = stream_server(settings, suite, None)
    assert isinstance(service, StreamService)
    return mcp, service, suite.tasks


async def test_a_client_past_its_quota_is_refused(tmp_path: Path):
    mcp, _, tasks = _server(tmp_path, max_open_per_client=2)
    async with Client(mcp) as client:
        for task in tasks[:2]:
            assert not (await client.call_tool("start_stream", {"task_id": task.id})).is_error
        refused = await client.call_tool("start_stream", {"task_id": tasks[2].id})
    assert refused.is_error and "limit per client (max_open_per_client)" in refused.content[0].text


async def test_an_idle_stream_is_ended_as_the_contestants_failure(tmp_path: Path):
    mcp, service, tasks = _server(tmp_path)
    now = [0.0]
    service.limits._clock = lambda: now[0]
    async with Client(mcp) as client:
        await client.call_tool("start_stream", {"task_id": tasks[0].id})
        now[0] += 61
        assert await service.expire_idle(60) == 1
    (log,) = tmp_path.rglob("*.jsonl")
    end = read_log(log).events[-1]
    assert end["reason"] == "agent_error" and end["detail"].startswith("idle timeout: ")
    assert service.limits.open_count == 0


async def _hear_feedback(client: Client, episode_id: str) -> None:
    """Recommend in the first shopping episode: the customer's feedback answers."""
    task = load_suite(SUITE).tasks[0]
    item = task.episodes[0].item_ids[0]
    arguments = {"episode_id": episode_id, "item_id": item}
    answered = await client.call_tool("recommend_item", arguments)
    assert not answered.is_error and "feedback" in str(answered.structured_content)


async def _ask_nothing(client: Client, episode_id: str) -> None:
    return None


async def test_in_a_sealed_run_a_cut_after_feedback_is_a_played_failure(tmp_path: Path):
    """The attack: park a stream after feedback, wait for an operator's restart, play it
    again knowing what the customer said."""
    logs = tmp_path / "logs"
    end = await cut_off(SUITE, logs, sealed=True, act=_hear_feedback)
    assert end["reason"] == "infra_error"
    assert end["detail"] == f"{SHUTDOWN_DETAIL} (after the contestant saw feedback: played)"
    again = await start_again_after_restart(SUITE, logs)
    assert again.is_error and "was already played in this sealed run" in again.text
    group, run, _ = scored(logs)
    assert run["counted"] == 1 and run["failed"] == {"never started": 3}
    assert group["n_episodes"] == 4 and group["infra_errors"] == 4  # 3 never started, 1 cut


async def test_in_a_sealed_run_a_cut_before_any_feedback_may_be_played_again(tmp_path: Path):
    logs = tmp_path / "logs"
    end = await cut_off(SUITE, logs, sealed=True, act=_ask_nothing)
    assert end["reason"] == "infra_error" and end["detail"] == SHUTDOWN_DETAIL
    again = await start_again_after_restart(SUITE, logs)
    assert not again.is_error, again.text


@pytest.mark.parametrize("act", [_ask_nothing, _hear_feedback])
async def test_in_open_mode_a_shutdown_cut_is_always_replayable(tmp_path: Path, act):
    logs = tmp_path / "logs"
    end = await cut_off(SUITE, logs, sealed=False, act=act)
    assert end["reason"] == "infra_error" and end["detail"] == SHUTDOWN_DETAIL
    (log,) = logs.rglob("*.jsonl")
    assert summarize_log(log).cut_off  # `taurec run --resume` plays it again
