"""The episode log writer: trajectory v1 exactly, append-only, one end."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from taurec.server.trajectory_writer import LogClosedError, TrajectoryWriter, log_path
from taurec.tasks.trajectory import AgentInfo, EndReason, Header, SimulatorInfo, SuiteRef
from taurec.tasks.trajectory_reader import read_log

HEADER = Header(
    run_id="r1",
    episode_id="ab" * 16,
    agent=AgentInfo(label="tester"),
    task_id="t001",
    task_sha256="0" * 64,
    suite=SuiteRef(id="builtin", spec="builtin"),
    catalog_sha256="1" * 64,
    trial=2,
    seed=7,
    simulator=SimulatorInfo(kind="rule", settings={"patience": 6}),
    server_version="0.1.0",
    started_at=datetime(2026, 1, 1, tzinfo=UTC),
)


def _writer(tmp_path: Path) -> TrajectoryWriter:
    return TrajectoryWriter(log_path(tmp_path, "run", "t001", 2, HEADER.episode_id), HEADER)


def _lines(path: Path) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


async def test_a_finished_log_reads_back_without_problems(tmp_path: Path) -> None:
    w = _writer(tmp_path)
    w.user_message("Hi, a comedy please.", latency_ms=1.5)
    w.agent_message("How long may it be?")
    w.tool_call("c1", "get_item", {"item_id": "m1"})
    w.tool_result("c1", {"id": "m1", "next": None}, is_error=False, latency_ms=0.2)
    w.user_message("Great.", accepted="m1")
    await w.end(EndReason.RECOMMENDED, item_id="m1")
    parsed = read_log(w.path)
    assert parsed.ok, parsed.problems
    assert parsed.header.model_copy(update={"chain": None}) == HEADER
    assert parsed.header.chain is not None  # chained (tests/evaluator/test_verify.py)
    assert [e["seq"] for e in parsed.events] == [1, 2, 3, 4, 5, 6]
    assert parsed.events[-1]["type"] == "end"
    assert parsed.events[-1]["item_id"] == "m1"


async def test_the_header_comes_first_with_every_field(tmp_path: Path) -> None:
    w = _writer(tmp_path)
    await w.end(EndReason.ABSTAINED)
    header = _lines(w.path)[0]
    assert header["type"] == "header"
    for key in (
        "format", "format_version", "run_id", "episode_id", "agent", "task_id", "task_sha256",
        "suite", "catalog_sha256", "trial", "seed", "simulator", "server_version", "started_at",
    ):  # fmt: skip
        assert key in header


async def test_tool_result_content_is_logged_verbatim(tmp_path: Path) -> None:
    w = _writer(tmp_path)
    content = {"items": [], "total": 0, "next_cursor": None, "warnings": []}
    w.tool_call("c1", "filter_catalog", {})
    w.tool_result("c1", content, is_error=False, latency_ms=None)
    assert _lines(w.path)[-1]["content"] == content


async def test_times_increase_and_latency_is_optional(tmp_path: Path) -> None:
    w = _writer(tmp_path)
    w.user_message("a")
    w.agent_message("b")
    await w.end(EndReason.USER_LEFT)
    events = _lines(w.path)[1:]
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    assert "latency_ms" not in events[0]


async def test_nothing_may_follow_the_end(tmp_path: Path) -> None:
    w = _writer(tmp_path)
    await w.end(EndReason.MAX_TURNS)
    with pytest.raises(LogClosedError):
        w.agent_message("hello?")
    with pytest.raises(LogClosedError):
        await w.end(EndReason.MAX_TURNS)
    assert [line["type"] for line in _lines(w.path)] == ["header", "end"]


def test_an_unfinished_log_is_reported_incomplete(tmp_path: Path) -> None:
    w = _writer(tmp_path)
    w.user_message("Hi")
    w.agent_message("Hello")  # ...and the server dies here
    parsed = read_log(w.path)
    assert not parsed.ok
    assert any("incomplete" in p.message for p in parsed.problems)


def test_a_log_is_never_overwritten(tmp_path: Path) -> None:
    _writer(tmp_path)
    with pytest.raises(FileExistsError):
        _writer(tmp_path)


def test_log_path_groups_by_run_task_and_trial(tmp_path: Path) -> None:
    path = log_path(tmp_path, "run1", "t009", 3, "0123456789abcdef" * 2)
    assert path == tmp_path / "run1" / "t009" / "trial3-0123456789ab.jsonl"
