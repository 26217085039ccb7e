"""τ-Rec v1.0's own call shapes, accepted: `recommend()` with no item_id abstains, and
`check_availability(item_id, services=[...])` answers for each named service while
`available` stays about the episode user's own services."""

from __future__ import annotations

from pathlib import Path

from mcp import Client
from support.results import error_text as _error
from support.results import ok as _ok

from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation import catalog_tools as ct
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

SUITE = load_suite("builtin")


def _client(tmp_path: Path) -> Client:
    return Client(build_server(ServerSettings(log_dir=tmp_path, run_label="shapes")))


async def _start(client: Client, task_id: str = "t001") -> str:
    return str(_ok(await client.call_tool("start_episode", {"task_id": task_id}))["episode_id"])


async def test_recommend_without_an_item_id_abstains(tmp_path: Path) -> None:
    async with _client(tmp_path) as client:
        result = _ok(await client.call_tool("recommend", {"episode_id": await _start(client)}))
    assert result["abstained"] and result["end_reason"] == "abstained"
    (path,) = tmp_path.rglob("*.jsonl")
    assert read_log(path).events[-1]["reason"] == "abstained"


async def test_check_availability_answers_for_each_named_service(tmp_path: Path) -> None:
    task = SUITE.get("t001")
    assert task is not None
    item = next(it for it in SUITE.catalog.items if it.streaming_services)
    on, off = item.streaming_services[0], "No Such Streamer"
    async with _client(tmp_path) as client:
        eid = await _start(client)
        args = {"episode_id": eid, "item_id": item.id, "services": [on, off]}
        result = _ok(await client.call_tool("check_availability", args))
        plain = _ok(await client.call_tool("check_availability", {**args, "services": None}))
    assert result["asked"] == {on: True, off: False}
    # the user's own services decide `available`, whatever the call names
    own = ct.check_availability(SUITE.catalog, item.id, list(task.user.services))
    assert result["available"] == own.available and result["matched"] == own.matched
    assert "asked" not in plain
    (path,) = tmp_path.rglob("*.jsonl")
    events = read_log(path).events
    call = next(e for e in events if e["type"] == "tool_call")
    logged = next(e for e in events if e["type"] == "tool_result")
    assert call["arguments"]["services"] == [on, off]
    replayed = ct.replay_call(SUITE.catalog, task, "check_availability", call["arguments"])
    assert replayed == logged["content"]


async def test_check_availability_refuses_services_that_are_not_a_list_of_names(
    tmp_path: Path,
) -> None:
    async with _client(tmp_path) as client:
        eid = await _start(client)
        args = {"episode_id": eid, "item_id": "syn_000001", "services": "Netflix"}
        text = _error(await client.call_tool("check_availability", args))
    assert "services" in text


def test_replaying_an_old_check_availability_call_gives_the_result_it_logged():
    task = SUITE.get("t001")
    assert task is not None
    old = ct.check_availability(SUITE.catalog, "syn_000001", list(task.user.services))
    replayed = ct.replay_call(SUITE.catalog, task, "check_availability", {"item_id": "syn_000001"})
    assert replayed == old.model_dump(mode="json") and "asked" not in replayed
