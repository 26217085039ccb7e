"""One episode played in a scratch folder, its finished log handed back whole.

This is what a Ray worker runs for each task x trial (it needs no Ray itself): a server of
its own (in process, or `taurec serve` over stdio) serving the run's sealed plan, writing
into a temporary folder; the same `Runner` as a local run plays the episode; the finished
log's bytes and its end (from the scratch register) are returned, and the scratch folder
is deleted. Nothing the worker writes is ever read again: if the worker dies half-way,
its folder is simply gone (or left in its machine's temp dir), and the episode is played
again from scratch. Only the driver writes into the run's folder (handoff.py).
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

from taurec.clients.agents.base import Agent
from taurec.clients.runner.connection import Connection, Transport
from taurec.clients.runner.plan import EpisodeSpec
from taurec.clients.runner.runner import Runner
from taurec.server.settings import ServerSettings
from taurec.tasks.runs.register import REGISTER_NAME, read_register


@dataclass(frozen=True)
class EpisodeJob:
    """Everything a worker needs for one episode (it pickles: no open handles)."""

    make_agent: Callable[[], Agent]
    transport: Transport  # inproc or stdio: a server the worker starts
    settings: ServerSettings  # the run's server settings; log_dir and plans are replaced
    plan_name: str  # the plan file's name
    plan_bytes: bytes  # the sealed plan (with its token: the worker's server serves it)
    run_id: str
    spec: EpisodeSpec
    seed: int | None = None
    episode_timeout: float | None = 900.0
    scratch_root: str | None = None  # where scratch folders go (None: the system's temp)


@dataclass(frozen=True)
class PlayedEpisode:
    """A finished episode as a worker hands it back. `log_name` is relative to the run
    folder (`<task>/trial<k>-<id>.jsonl`); `log` is None when no episode was started (then
    `error` says why)."""

    spec: EpisodeSpec
    episode_id: str | None
    end_reason: str | None
    error: str | None
    log_name: str | None = None
    log: bytes | None = None
    end_detail: str | None = None
    log_chain: str | None = None
    cut_by_server: bool = False
    worker: str = ""  # host:pid, for messages


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def play_in_scratch(job: EpisodeJob) -> PlayedEpisode:
    with tempfile.TemporaryDirectory(prefix="taurec-episode-", dir=job.scratch_root) as scratch:
        return _play(job, Path(scratch))


def _play(job: EpisodeJob, scratch: Path) -> PlayedEpisode:
    plan_path = scratch / ".plans" / job.plan_name
    plan_path.parent.mkdir(mode=0o700)
    plan_path.write_bytes(job.plan_bytes)
    plan_path.chmod(0o600)
    settings = job.settings.model_copy(update={"log_dir": scratch, "plans": (plan_path,)})
    runner = Runner(
        job.make_agent(),
        Connection(job.transport, settings),
        scratch,
        job.run_id,
        concurrency=1,
        seed=job.seed,
        episode_timeout=job.episode_timeout,
        handle_signals=False,
    )
    report = anyio.run(runner.run, [job.spec])
    if report.failure is not None or not report.results:
        why = report.failure or "the episode did not run"
        return PlayedEpisode(job.spec, None, "infra_error", why, worker=worker_name())
    result = report.results[0]
    played = PlayedEpisode(
        job.spec, result.episode_id, result.end_reason, result.error, worker=worker_name()
    )
    if result.log is None or result.episode_id is None:
        return played
    folder = scratch / job.run_id
    register = read_register((folder / REGISTER_NAME).read_bytes(), None)
    attempt = register.attempt_of(result.episode_id)
    if attempt is None or attempt.end_reason is None:  # not ended: not a finished log
        return PlayedEpisode(
            job.spec,
            result.episode_id,
            result.end_reason,
            result.error or "the episode has no end in its server's register",
            worker=played.worker,
        )
    return PlayedEpisode(
        job.spec,
        result.episode_id,
        attempt.end_reason,
        result.error,
        log_name=result.log.relative_to(folder).as_posix(),
        log=result.log.read_bytes(),
        end_detail=attempt.end_detail,
        log_chain=attempt.log_chain,
        cut_by_server=attempt.cut_by_server,
        worker=played.worker,
    )
