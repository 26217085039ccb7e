"""Catalog work off the event loop (catalog_workers.py): searches and filters run in a
pool of threads, one client holds at most its share of them, a call whose work runs past
its budget ends with an error (logged as refused) while waiting never counts, a call the
server leaves unanswered ends the episode as infra_error, and a search query has a
length limit."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from support.results import error_text, ok

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.logs import Resolver, score_paths
from taurec.evaluator.recommendation.replay import Replayer
from taurec.server.app import build_server
from taurec.server.recommendation.catalog_workers import CatalogStalled, CatalogWorkers, OverBudget
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation import catalog_tools as ct
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.format import Trajectory
from taurec.tasks.trajectory.reader import read_log


def _client(tmp_path: Path, **settings: Any) -> Client:
    return Client(build_server(ServerSettings(log_dir=tmp_path, run_label="workers", **settings)))


async def _start(client: Client) -> str:
    return str(ok(await client.call_tool("start_episode", {"task_id": "t001"}))["episode_id"])


def _log(tmp_path: Path, episode_id: str) -> Trajectory:
    """The episode's log so far (it has not ended: no end record yet)."""
    (path,) = tmp_path.rglob(f"*-{episode_id[:12]}.jsonl")
    parsed = read_log(path)
    assert parsed.header is not None and parsed.unfinished, parsed.problems
    return Trajectory(header=parsed.header, events=parsed.events)


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """An event blocked work waits on; set at the end so no thread is left waiting."""
    event = threading.Event()
    yield event
    event.set()


async def test_a_search_over_the_query_limit_is_refused_in_one_line(tmp_path: Path) -> None:
    async with _client(tmp_path, max_query_chars=20) as client:
        eid = await _start(client)
        query = "space heist " * 2  # 24 characters
        text = error_text(
            await client.call_tool("search_catalog", {"episode_id": eid, "query": query})
        )
        later = await client.call_tool("search_catalog", {"episode_id": eid, "query": "space"})
    assert "\n" not in text
    assert "argument 'query'" in text and "24 characters" in text
    assert "at most 20" in text and "max_query_chars" in text
    assert not later.is_error
    results = [e for e in _log(tmp_path, eid).events if e["type"] == "tool_result"]
    assert results[0]["is_error"] and results[0]["refused"] and results[0]["content"] == text


async def test_the_query_limit_is_shown_in_the_tool_schema(tmp_path: Path) -> None:
    async with _client(tmp_path, max_query_chars=321) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert tools["search_catalog"].input_schema["properties"]["query"]["maxLength"] == 321


def _busy_until(gate: threading.Event) -> None:
    """Work that keeps its thread on the CPU until `gate` is set."""
    while not gate.is_set():
        sum(range(1000))


async def test_a_call_past_its_budget_errs_while_another_episode_is_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gate: threading.Event
) -> None:
    entered = threading.Event()

    def heavy_search(*args: Any, **kwargs: Any) -> ct.SearchResults:
        entered.set()
        _busy_until(gate)  # released at the end of the test
        return ct.SearchResults(query="", hits=[])

    monkeypatch.setattr(ct, "search_catalog", heavy_search)
    done: list[str] = []
    async with _client(tmp_path, catalog_call_seconds=0.3) as client:
        slow, other = await _start(client), await _start(client)

        async def search() -> None:
            result = await client.call_tool("search_catalog", {"episode_id": slow, "query": "x"})
            done.append("search: " + error_text(result))

        async with anyio.create_task_group() as tg:
            tg.start_soon(search)
            await anyio.to_thread.run_sync(entered.wait)
            item = await client.call_tool(
                "get_item", {"episode_id": other, "item_id": "syn_000001"}
            )
            done.append("get_item: " + ("error" if item.is_error else "ok"))
        history = await client.call_tool("get_user_history", {"episode_id": slow})
    assert done[0] == "get_item: ok"
    assert "budget of 0.3 s of work" in done[1] and "catalog_call_seconds" in done[1]
    assert not history.is_error  # the episode goes on
    trajectory = _log(tmp_path, slow)
    (dropped,) = [e for e in trajectory.events if e["type"] == "tool_result" and e["is_error"]]
    assert dropped["refused"] and dropped["content"] in done[1]
    suite = load_suite("builtin")
    task = suite.get("t001")
    assert task is not None
    assert Replayer(suite.catalog).mismatches(trajectory, task) == []  # nothing to compare


async def test_waiting_for_a_thread_never_counts_against_the_budget(
    gate: threading.Event,
) -> None:
    workers = CatalogWorkers(workers=1, per_client=1, budget_seconds=0.05)
    results: list[str] = []

    async def call(name: str, work: Any) -> None:
        results.append(await workers.run("runner", name, work))

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, "first", lambda: gate.wait() and "first")
        tg.start_soon(call, "queued", lambda: "queued")
        await anyio.sleep(0.5)  # ten budgets of waiting: blocked, not working
        assert results == []
        gate.set()
    assert sorted(results) == ["first", "queued"]


async def test_a_call_left_unanswered_past_the_stall_guard_is_the_harnesss_failure(
    gate: threading.Event,
) -> None:
    workers = CatalogWorkers(workers=1, per_client=1, budget_seconds=60.0, stall_seconds=0.2)
    with pytest.raises(CatalogStalled, match="catalog_call_stall_seconds") as stalled:
        await workers.run("a", "filter_catalog", gate.wait)
    assert not isinstance(stalled.value, OverBudget)  # never an error charged to the agent
    assert "\n" not in str(stalled.value)


async def test_a_stalled_call_ends_the_episode_as_infra_error_naming_the_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gate: threading.Event
) -> None:
    def stuck_filter(*args: Any, **kwargs: Any) -> ct.FilterPage:
        gate.wait()
        raise AssertionError("released only at the end of the test")

    monkeypatch.setattr(ct, "filter_catalog", stuck_filter)
    async with _client(tmp_path, catalog_call_stall_seconds=0.2) as client:
        eid = await _start(client)
        text = error_text(
            await client.call_tool("filter_catalog", {"episode_id": eid, "genres_any": ["Drama"]})
        )
    assert "infra_error" in text and "not yours" in text
    (path,) = tmp_path.rglob(f"*-{eid[:12]}.jsonl")
    *_, result, end = read_log(path).events
    assert result["type"] == "tool_result" and result["refused"]  # no result to replay
    assert end["type"] == "end" and end["reason"] == "infra_error"
    assert "CatalogStalled" in end["detail"] and "catalog_call_stall_seconds" in end["detail"]
    (score,) = score_paths([tmp_path], Resolver())
    assert score.infra_error and score.end_reason == "infra_error"
    (group,) = aggregate([score])
    assert group["infra_errors"] == 1  # the table's and --json's count


async def test_one_client_holds_at_most_its_share_of_the_threads(gate: threading.Event) -> None:
    workers = CatalogWorkers(workers=2, per_client=1, budget_seconds=60.0)
    started = threading.Event()

    def blocked() -> str:
        started.set()
        gate.wait()
        return "hostile"

    order: list[str] = []
    async with anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(lambda: workers.run("hostile", "search_catalog", blocked))
        await anyio.to_thread.run_sync(started.wait)
        order.append(await workers.run("victim", "get_item", lambda: "victim"))
        assert workers.in_use("hostile") == 1  # one running, two waiting for its own thread
        gate.set()
    assert order == ["victim"]
    assert workers.in_use("hostile") == 0


async def test_work_past_its_budget_holds_its_thread_until_it_ends(gate: threading.Event) -> None:
    workers = CatalogWorkers(workers=1, per_client=1, budget_seconds=0.2)
    with pytest.raises(OverBudget, match=r"budget of 0\.2 s of work"):
        await workers.run("a", "filter_catalog", lambda: _busy_until(gate))
    assert workers.in_use("a") == 1  # still running: the client's share is still taken
    gate.set()
    while workers.in_use("a"):
        await anyio.sleep(0.01)
    assert await workers.run("a", "filter_catalog", lambda: 42) == 42
