"""Calls of one model response (request `_meta` "taurec/batch"): logged with their batch,
and a commit made before the last call of its batch holds the end record until the rest
of the batch has come, each of them logged as a refused call of that batch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from support.results import error_text as _error
from support.results import ok as _ok

from taurec.server.app import build_server
from taurec.server.recommendation.service import Service
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.reader import read_log

ITEM, OTHER = "syn_000020", "syn_000021"


def _client(tmp_path: Path, **settings: Any) -> Client:
    return Client(build_server(ServerSettings(log_dir=tmp_path, run_label="batches", **settings)))


async def _start(client: Client) -> str:
    return str(_ok(await client.call_tool("start_episode", {"task_id": "t001"}))["episode_id"])


def _events(tmp_path: Path, ended: bool = True) -> list[dict[str, Any]]:
    (path,) = tmp_path.rglob("*.jsonl")
    log = read_log(path)
    assert log.ok or not ended, log.problems
    return log.events


def _batch(batch_id: str, size: int) -> dict[str, Any]:
    return {"taurec/batch": {"id": batch_id, "size": size}}


async def _call(client: Client, eid: str, tool: str, meta: dict[str, Any], **arguments: Any):
    return await client.call_tool(tool, {"episode_id": eid, **arguments}, meta=meta)  # type: ignore[arg-type]


async def test_each_call_is_logged_with_the_batch_it_came_in(tmp_path: Path) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        _ok(await _call(client, eid, "get_user_history", _batch("r1", 2)))
        _ok(await _call(client, eid, "get_item", _batch("r1", 2), item_id=ITEM))
        _ok(await client.call_tool("get_user_history", {"episode_id": eid}))
    calls = [e for e in _events(tmp_path, ended=False) if e["type"] == "tool_call"]
    assert [c.get("batch") for c in calls] == ["r1", "r1", None]
    assert "batch" not in calls[2]  # a call that names no batch logs none


async def test_a_second_recommend_in_the_committing_batch_is_logged_refused_before_the_end(
    tmp_path: Path,
) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        first = _ok(await _call(client, eid, "recommend", _batch("r1", 2), item_id=ITEM))
        second = _error(await _call(client, eid, "recommend", _batch("r1", 2), item_id=OTHER))
    assert first["episode_ended"] and first["end_reason"] == "recommended"
    assert "has ended (recommended)" in second and "was not run" in second
    events = _events(tmp_path)
    calls = [e for e in events if e["type"] == "tool_call"]
    assert [(c["arguments"]["item_id"], c["batch"]) for c in calls] == [(ITEM, "r1"), (OTHER, "r1")]
    refused = events[-2]
    assert refused["type"] == "tool_result" and refused["refused"] and refused["is_error"]
    assert (events[-1]["type"], events[-1]["reason"], events[-1]["item_id"]) == (
        "end",
        "recommended",
        ITEM,
    )


async def test_recommend_then_abstain_in_one_batch_ends_with_the_recommendation(
    tmp_path: Path,
) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        _ok(await _call(client, eid, "recommend", _batch("r1", 2), item_id=ITEM))
        _error(await _call(client, eid, "recommend", _batch("r1", 2), item_id=None))
    end = _events(tmp_path)[-1]
    assert (end["reason"], end["item_id"]) == ("recommended", ITEM)


async def test_a_call_outside_the_held_batch_writes_the_end_and_is_not_logged(
    tmp_path: Path,
) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        _ok(await _call(client, eid, "recommend", _batch("r1", 3), item_id=ITEM))
        text = _error(await _call(client, eid, "get_user_history", _batch("r2", 1)))
    assert "has ended (recommended)" in text
    events = _events(tmp_path)
    assert events[-1]["type"] == "end" and events[-1]["reason"] == "recommended"
    assert [e["name"] for e in events if e["type"] == "tool_call"] == ["recommend"]
    assert not any(e.get("refused") for e in events)


async def test_a_commit_ends_at_once_when_its_batch_is_complete(tmp_path: Path) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        _ok(await _call(client, eid, "get_user_history", _batch("r1", 2)))
        _ok(await _call(client, eid, "recommend", _batch("r1", 2), item_id=ITEM))
    assert _events(tmp_path)[-1]["type"] == "end"


async def test_a_schema_rejected_call_of_the_held_batch_is_logged_in_it(tmp_path: Path) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        _ok(await _call(client, eid, "recommend", _batch("r1", 2), item_id=ITEM))
        _error(await _call(client, eid, "get_item", _batch("r1", 2), item_id=["x"]))
    events = _events(tmp_path)
    assert events[-3]["name"] == "get_item" and events[-3]["batch"] == "r1"
    assert events[-2]["refused"] and events[-1]["type"] == "end"


async def test_past_the_tool_call_limit_a_held_batch_is_cut_and_its_commit_ends_it(
    tmp_path: Path,
) -> None:
    async with _client(tmp_path, max_tool_calls_per_episode=2) as client:
        eid = await _start(client)
        _ok(await _call(client, eid, "recommend", _batch("r1", 5), item_id=ITEM))
        _error(await _call(client, eid, "get_user_history", _batch("r1", 5)))
        _error(await _call(client, eid, "get_user_history", _batch("r1", 5)))
    events = _events(tmp_path)
    assert [e["name"] for e in events if e["type"] == "tool_call"] == [
        "recommend",
        "get_user_history",
    ]
    assert (events[-1]["reason"], events[-1]["item_id"]) == ("recommended", ITEM)


async def test_a_malformed_batch_is_refused_naming_it(tmp_path: Path) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        bad = {"taurec/batch": {"id": "r1", "size": 0}}
        text = _error(await _call(client, eid, "get_user_history", bad))
        _ok(await _call(client, eid, "get_user_history", _batch("r2", 1)))
    assert "_meta.taurec/batch" in text and "size" in text and "from 1 to" in text


async def test_a_shutdown_writes_the_held_commit_as_the_end(tmp_path: Path) -> None:
    service = Service.create(ServerSettings(log_dir=tmp_path))
    started = await service.start_episode("t001")
    episode = service.store.get(started.episode_id)
    from taurec.server.recommendation.batches import Batch

    async with episode.lock:
        episode.batches.enter(Batch("r1", 2))
        await episode.recommend(ITEM, None, service.catalog)
    assert episode.end is None and episode.batches.held is not None
    assert await service.close_all() == 1
    end = _events(tmp_path)[-1]
    assert (end["reason"], end["item_id"]) == ("recommended", ITEM)


async def test_an_abort_is_logged_in_its_own_batch_not_the_last_calls(tmp_path: Path) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        _ok(await _call(client, eid, "get_user_history", _batch("r1", 1)))
        _ok(await client.call_tool("abort_episode", {"episode_id": eid, "reason": "agent_error"}))
    abort = next(e for e in _events(tmp_path) if e.get("name") == "abort_episode")
    assert "batch" not in abort


async def test_calls_sent_side_by_side_with_a_commit_are_logged_as_its_batch(
    tmp_path: Path,
) -> None:
    """A client that names no batch but sends a response's calls concurrently: the calls
    that came while the commit ran are logged, refused, with a batch made for the commit."""
    async with _client(tmp_path) as client:
        eid = await _start(client)
        results: dict[str, Any] = {}

        async def send(item: str) -> None:
            results[item] = await client.call_tool(
                "recommend", {"episode_id": eid, "item_id": item}
            )

        async with anyio.create_task_group() as tg:
            tg.start_soon(send, ITEM)
            tg.start_soon(send, OTHER)
    events = _events(tmp_path)
    calls = [e for e in events if e["type"] == "tool_call"]
    first, second = calls
    assert "batch" not in first
    assert second["batch"] == f"concurrent:{first['call_id']}"
    assert second["arguments"]["item_id"] == (
        OTHER if first["arguments"]["item_id"] == ITEM else ITEM
    )
    refused = next(
        e for e in events if e["type"] == "tool_result" and e["call_id"] == second["call_id"]
    )
    assert refused["refused"] and refused["is_error"]
    assert events[-1]["type"] == "end" and events[-1]["item_id"] == first["arguments"]["item_id"]


async def test_a_call_sent_after_a_commit_returned_is_no_part_of_its_batch(tmp_path: Path) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        _ok(await client.call_tool("recommend", {"episode_id": eid, "item_id": ITEM}))
        text = _error(await client.call_tool("recommend", {"episode_id": eid, "item_id": OTHER}))
    assert "has ended" in text
    assert [e["arguments"]["item_id"] for e in _events(tmp_path) if e["type"] == "tool_call"] == [
        ITEM
    ]
