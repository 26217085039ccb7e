"""An episode whose log cannot be written (a full disk): it ends as infra_error, the
agent is told in one line without the system's error text, and the log keeps only whole
lines. The write is made to fail with ENOSPC by patching the writer's one write call."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from mcp import Client
from support.results import error_text, ok

from taurec.server import trajectory_writer
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.reader import read_log


def _fill_the_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    def write_all(fd: int, data: bytes) -> None:
        os.write(fd, data[:7])  # part of the line fits, then the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/var/secret/path.jsonl")

    monkeypatch.setattr(trajectory_writer, "_write_all", write_all)


async def test_a_full_disk_ends_the_episode_as_infra_error_with_one_line_to_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        eid = ok(await client.call_tool("start_episode", {"task_id": "t001"}))["episode_id"]
        (path,) = tmp_path.rglob("*.jsonl")
        before = path.read_bytes()
        _fill_the_disk(monkeypatch)
        failed = error_text(
            await client.call_tool("send_message", {"episode_id": eid, "text": "Hi there!"})
        )
        later = error_text(await client.call_tool("get_user_history", {"episode_id": eid}))
    assert "\n" not in failed
    assert "has ended (infra_error)" in failed and "disk is full" in failed
    assert "Errno" not in failed and "No space left" not in failed and "/var/" not in failed
    assert str(tmp_path) not in failed
    assert "has ended (infra_error)" in later and "could not write its log" in later
    assert path.read_bytes() == before  # the failed lines were cut back: nothing torn
    assert [p.message for p in read_log(path).problems] == [
        "no end record: the episode did not finish (incomplete log)"
    ]


async def test_the_end_record_is_written_when_there_is_room_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = trajectory_writer._write_all

    def write_all(fd: int, data: bytes) -> None:  # only long lines do not fit
        if len(data) > 1000:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        eid = ok(await client.call_tool("start_episode", {"task_id": "t001"}))["episode_id"]
        monkeypatch.setattr(trajectory_writer, "_write_all", write_all)
        failed = error_text(
            await client.call_tool("search_catalog", {"episode_id": eid, "query": "comedy"})
        )
    assert "has ended (infra_error)" in failed
    (path,) = tmp_path.rglob("*.jsonl")
    parsed = read_log(path)
    assert parsed.ok, parsed.problems
    end = parsed.events[-1]
    assert (end["reason"], end["detail"]) == (
        "infra_error",
        "log write failed: ENOSPC (No space left on device)",
    )


async def test_no_episode_starts_while_the_disk_is_full_and_no_empty_log_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill_the_disk(monkeypatch)
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        refused = error_text(await client.call_tool("start_episode", {"task_id": "t001"}))
    assert "disk is full" in refused and "no episode can start now" in refused
    assert "Errno" not in refused and "\n" not in refused
    assert list(tmp_path.rglob("*.jsonl")) == []
