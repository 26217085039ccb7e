"""Which episodes of a run have no whole log (what makes `taurec run` exit 1 on a full disk)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import anyio

from taurec.clients.runner.log_failures import log_failure, log_failures
from taurec.clients.runner.plan import EpisodeSpec
from taurec.clients.runner.runner import EpisodeResult
from taurec.server.trajectory_writer import TrajectoryWriter
from taurec.tasks.trajectory.format import AgentInfo, EndReason, Header, SimulatorInfo, SuiteRef

SPEC = EpisodeSpec("t001", 0)


def _log(tmp_path: Path, end: tuple[EndReason, str | None] | None) -> Path:
    header = Header(
        run_id="r1",
        episode_id="cd" * 16,
        agent=AgentInfo(label="a"),
        task_id="t001",
        task_sha256="0" * 64,
        suite=SuiteRef(id="builtin", spec="builtin"),
        catalog_sha256="1" * 64,
        trial=0,
        seed=1,
        simulator=SimulatorInfo(kind="rule"),
        server_version="test",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    writer = TrajectoryWriter(tmp_path / "t001" / "trial0-cdcdcdcdcdcd.jsonl", header)
    writer.user_message("Hi.")
    if end is not None:
        anyio.run(lambda: writer.end(end[0], detail=end[1]))
    return writer.path


def test_a_start_refused_for_a_full_disk_is_a_log_failure_naming_it() -> None:
    error = (
        "start_episode failed: Error executing tool start_episode: the server's disk is full, "
        "so it could not write the episode log, so no episode can start now"
    )
    failure = log_failure(EpisodeResult(SPEC, None, "infra_error", error=error))
    assert failure is not None and "disk is full" in failure.cause
    assert not failure.cause.startswith("start_episode failed")


def test_an_ended_episode_whose_log_has_no_end_record_is_a_log_failure(tmp_path: Path) -> None:
    path = _log(tmp_path, None)
    failure = log_failure(EpisodeResult(SPEC, "cd" * 16, "infra_error", log=path))
    assert failure is not None and "no end record" in failure.cause


def test_an_end_record_saying_the_log_failed_is_a_log_failure(tmp_path: Path) -> None:
    path = _log(tmp_path, (EndReason.INFRA_ERROR, "log write failed: ENOSPC (No space left)"))
    failure = log_failure(EpisodeResult(SPEC, "cd" * 16, "infra_error", log=path))
    assert failure is not None and "ENOSPC" in failure.cause


def test_whole_logs_and_other_failures_are_not_log_failures(tmp_path: Path) -> None:
    whole = _log(tmp_path, (EndReason.RECOMMENDED, None))
    results = [
        EpisodeResult(SPEC, "cd" * 16, "recommended", log=whole),
        EpisodeResult(SPEC, None, "infra_error", error="start_episode failed: unknown task"),
    ]
    assert log_failures(results) == []


def test_a_missing_log_says_why_when_the_runner_knows() -> None:
    result = EpisodeResult(
        EpisodeSpec("t001", 0), "e" * 32, "infra_error", error="it is signed with another key"
    )
    failure = log_failure(result)
    assert failure is not None
    assert failure.cause == "its log is missing (it is signed with another key)"
