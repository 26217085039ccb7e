"""The episode log writer: trajectory v1 exactly, append-only, one end."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from taurec.server import trajectory_writer
from taurec.server.trajectory_writer import (
    LogClosedError,
    LogWriteError,
    TrajectoryWriter,
    append_whole,
    log_path,
)
from taurec.tasks.trajectory.format import AgentInfo, EndReason, Header, SimulatorInfo, SuiteRef
from taurec.tasks.trajectory.reader import read_log

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


# --- private files ---------------------------------------------------------------------------


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    saved = os.umask(0o022)
    yield
    os.umask(saved)


async def test_logs_are_0600_in_0700_folders(tmp_path: Path, permissive_umask: None) -> None:
    w = _writer(tmp_path / "logs")
    await w.end(EndReason.ABSTAINED)
    assert stat.S_IMODE(w.path.stat().st_mode) == 0o600
    for folder in (tmp_path / "logs", tmp_path / "logs" / "run", w.path.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


# --- a full disk -----------------------------------------------------------------------------


def _disk_fills_after(monkeypatch: pytest.MonkeyPatch, fitting: int) -> None:
    """From now on a write puts `fitting` bytes on disk, then fails with ENOSPC (as a
    kernel does when a write only partly fits)."""

    def write_all(fd: int, data: bytes) -> None:
        os.write(fd, data[:fitting])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(trajectory_writer, "_write_all", write_all)


async def test_a_write_that_fails_midway_is_cut_back_to_the_last_whole_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = _writer(tmp_path)
    w.user_message("Hi, a comedy please.")
    before = w.path.read_bytes()
    _disk_fills_after(monkeypatch, 10)
    with pytest.raises(LogWriteError) as failed:
        w.agent_message("How long may it be? " * 50)
    assert failed.value.disk_full and failed.value.cause.startswith("ENOSPC")
    assert w.path.read_bytes() == before  # no torn line
    with pytest.raises(LogWriteError):
        await w.end(EndReason.INFRA_ERROR)
    assert w.path.read_bytes() == before
    parsed = read_log(w.path)
    assert [p.message for p in parsed.problems] == [
        "no end record: the episode did not finish (incomplete log)"
    ]


async def test_a_write_after_a_failed_one_continues_the_log_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = _writer(tmp_path)
    with monkeypatch.context() as patch:
        _disk_fills_after(patch, 3)
        with pytest.raises(LogWriteError):
            w.user_message("lost")
    w.user_message("kept")
    await w.end(EndReason.ABSTAINED)
    parsed = read_log(w.path)
    assert parsed.ok, parsed.problems
    assert [e.get("text") for e in parsed.events] == ["kept", None]


def test_a_header_that_cannot_be_written_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _disk_fills_after(monkeypatch, 5)
    path = log_path(tmp_path, "run", "t001", 2, HEADER.episode_id)
    with pytest.raises(LogWriteError) as failed:
        TrajectoryWriter(path, HEADER)
    assert not path.exists()
    assert failed.value.agent_text == (
        "the server's disk is full, so it could not write the episode log"
    )
    assert str(path) not in failed.value.agent_text


def test_append_whole_leaves_a_file_as_it_was_when_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the run register's appends go through, too."""
    path = tmp_path / "run.register"
    path.write_bytes(b'{"type":"plan"}\n')
    _disk_fills_after(monkeypatch, 4)
    with pytest.raises(LogWriteError):
        append_whole(path, b'{"type":"start","episode_id":"x"}\n')
    assert path.read_bytes() == b'{"type":"plan"}\n'


async def test_dialogue_acts_are_logged_and_covered_by_the_hash_chain(tmp_path: Path) -> None:
    from taurec.tasks.trajectory.dialogue_acts import DialogueAct
    from taurec.tasks.trajectory.signing import verify_chain

    w = _writer(tmp_path)
    accept = DialogueAct(intent="accept", items=("syn_1",))
    w.user_message("I'll take it.", acts=[accept], acts_by="rule")
    await w.end(EndReason.USER_LEFT)
    log = read_log(w.path)
    assert log.ok and log.events[0]["acts"] == [accept.record()]
    raw = w.path.read_bytes()
    assert verify_chain(raw, None, require_signature=False) is None
    forged = raw.replace(b'"intent":"accept"', b'"intent":"reject"')
    assert verify_chain(forged, None, require_signature=False) is not None


async def test_every_line_of_a_log_verifies_as_the_end_of_its_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Format v2: each line's chain hashes the file before it, a failed write included
    in nothing; so a log cut after any line (a crashed server's) checks up to there."""
    from taurec.tasks.trajectory.signing import LogKey, verify_chain

    key = LogKey(b"a test key, 0123456789abcdef", "test")
    w = TrajectoryWriter(log_path(tmp_path, "run", "t001", 2, HEADER.episode_id), HEADER, key)
    w.user_message("Hi, a comedy please.")
    with monkeypatch.context() as patch:
        _disk_fills_after(patch, 3)
        with pytest.raises(LogWriteError):
            w.agent_message("lost")
    w.tool_call("c1", "get_item", {"item_id": "m1"})
    w.tool_result("c1", {"id": "m1"}, is_error=False, latency_ms=0.2)
    await w.end(EndReason.RECOMMENDED, item_id="m1")
    raw = w.path.read_bytes()
    assert orjson.loads(raw.split(b"\n", 1)[0])["format_version"] == 2
    lines = raw.splitlines(keepends=True)
    for n in range(1, len(lines)):
        assert verify_chain(b"".join(lines[:n]), None, require_signature=False) is None, n
    assert verify_chain(raw, key) is None
    assert verify_chain(raw, key, version=1) is not None  # not a v1 chain


async def test_a_v1_header_is_chained_line_by_line(tmp_path: Path) -> None:
    from taurec.tasks.trajectory.signing import verify_chain

    v1 = HEADER.model_copy(update={"format_version": 1})
    w = TrajectoryWriter(log_path(tmp_path, "run", "t001", 2, v1.episode_id), v1)
    w.user_message("Hi.")
    await w.end(EndReason.ABSTAINED)
    raw = w.path.read_bytes()
    assert verify_chain(raw, None, require_signature=False) is None
    assert verify_chain(raw, None, require_signature=False, version=2) is not None
