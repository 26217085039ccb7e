"""The stream server's limits, shared with the ranking server's (server/open_limits.py): a
cap per client, idle streams ended by the sweep, and a stream cut by a shutdown after
its contestant saw feedback counted as played."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from taurec.server.episode_end import EpisodeEnd
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


@pytest.mark.parametrize(("heard", "replayable"), [(False, True), (True, False)])
async def test_a_shutdown_cut_is_replayable_only_before_any_feedback(
    tmp_path: Path, heard: bool, replayable: bool
):
    mcp, service, tasks = _server(tmp_path)
    task = next(t for t in tasks if t.feedback.value == "regret")
    async with Client(mcp) as client:
        started = await client.call_tool("start_stream", {"task_id": task.id})
        stream = started.structured_content["episode_id"]
        if heard:
            item = task.episodes[0].item_ids[0]
            await client.call_tool("recommend_item", {"episode_id": stream, "item_id": item})
        assert await service.close_all() == 1
    (log,) = tmp_path.rglob("*.jsonl")
    end = read_log(log).events[-1]
    assert end["reason"] == "infra_error"
    assert ("played" in end["detail"]) is not replayable
    assert isinstance(service._ended[stream], EpisodeEnd)
    assert service._ended[stream].cut_by_server is replayable
