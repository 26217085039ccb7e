"""The driver's side of a distributed run: the one writer of the run folder and register.

Workers play episodes in scratch folders and hand back finished logs (scratch_episode.py);
the driver commits each one here, in this order:

1. claim the (task, trial) in the run register (`SealedRun.reserve`): a second delivery of
   an episode already recorded is refused, so nothing is ever counted twice;
2. check the log's end record: its chain is the one the worker's server recorded, and its
   HMAC verifies under the driver's log key (every node must sign with the same key);
3. write the log under a temporary name in its task folder (a dot name that no log search
   picks up), sync it, and link it into its final name (never over an existing file);
4. append the register's `start` line, then its `end` line (log chain and end reason).

The register is chained and signed with the driver's key exactly as a server's is (the
same `SealedRun` writes it), so `evaluator score` and `--verify` treat the run like any
sealed run. A crash of the driver between two steps leaves something a resume repairs:
after 3, a whole log the register does not name, which `reconcile` sets aside (and the
episode is played again, when a resume runs the backend at all); after the start line, an open attempt, which reopening the
register marks `interrupted`, and which may be played once more (as when a server dies).
A worker that dies mid-episode wrote nothing here at all.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

import orjson

from taurec.catalog.errors import DataError
from taurec.clients.runner.plan import EpisodeSpec, episode_logs, set_aside, summarize_log
from taurec.clients.runner.runner import EpisodeResult
from taurec.clients.runner.scratch_episode import PlayedEpisode
from taurec.evaluator.logs import Resolver, score_file
from taurec.server.run_facts import server_version
from taurec.server.sealed_run import SealedRun
from taurec.server.trajectory_writer import LogWriteError
from taurec.tasks.errors import EpisodeError
from taurec.tasks.runs.plan import read_plan
from taurec.tasks.runs.register import read_register
from taurec.tasks.trajectory.signing import LogKey


class Handoff:
    """The run folder `<out>/<run id>/` and its register, written by this process only."""

    def __init__(self, plan_path: Path, out: Path, key: LogKey) -> None:
        self.plan_path = plan_path
        self.plan = read_plan(plan_path)
        self.out = out
        self.key = key
        self.sealed = SealedRun(self.plan, out, key, server_version=server_version())

    @property
    def folder(self) -> Path:
        return self.sealed.folder

    def todo(self, specs: Sequence[EpisodeSpec]) -> list[EpisodeSpec]:
        """The episodes of `specs` the register lets this run play: never started, or cut
        off by a crash and not replayed yet."""
        return [s for s in specs if self.sealed.startable((s.task_id, s.trial))]

    def reconcile(self) -> list[EpisodeSpec]:
        """Set aside the logs in the run folder that the register does not name (a driver
        that died between writing a log and recording it); their episodes, to play again."""
        state = read_register(self.sealed.path.read_bytes(), self.key)
        named = {os.path.normpath(self.folder / a.log) for a in state.attempts}
        stray = [p for p in episode_logs(self.folder) if os.path.normpath(p) not in named]
        summaries = [summarize_log(p) for p in stray]
        set_aside(self.out, stray)
        return [
            EpisodeSpec(s.task_id, s.trial)
            for s in summaries
            if s.task_id is not None and s.trial is not None
        ]

    def commit(self, played: PlayedEpisode, resolver: Resolver) -> EpisodeResult:
        spec = played.spec

        def failed(why: str) -> EpisodeResult:
            return EpisodeResult(spec, played.episode_id, "infra_error", None, None, why)

        if played.log is None or played.log_name is None or played.episode_id is None:
            return EpisodeResult(spec, played.episode_id, played.end_reason, error=played.error)
        problem = self._check(played)
        if problem is not None:
            return failed(f"the log from worker {played.worker} was not recorded: {problem}")
        try:
            attempt = self.sealed.reserve(spec.task_id, spec.trial)
        except EpisodeError as exc:
            return failed(f"a second delivery was not recorded: {exc}")
        target = self.folder / played.log_name
        try:
            _write_new(target, played.log)
        except OSError as exc:
            self.sealed.release(spec.task_id, spec.trial)
            return failed(f"could not write the log {target}: {exc.strerror or exc}")
        try:
            self.sealed.started(spec.task_id, spec.trial, attempt, played.episode_id, target)
            self.sealed.ended(
                spec.task_id,
                spec.trial,
                played.episode_id,
                played.end_reason or "infra_error",
                played.end_detail,
                played.log_chain or "",
                cut_by_server=played.cut_by_server,
            )
        except (LogWriteError, DataError) as exc:
            return failed(f"could not write the run register {self.sealed.path}: {exc}")
        score = score_file(target, resolver)
        return EpisodeResult(
            spec, played.episode_id, played.end_reason, target, score, played.error
        )

    def _check(self, played: PlayedEpisode) -> str | None:
        """Why the handed-back log cannot be recorded, or None."""
        name = PurePosixPath(played.log_name or "")
        if name.is_absolute() or ".." in name.parts or name.suffix != ".jsonl":
            return f"its name {played.log_name!r} is not <task>/<file>.jsonl"
        assert played.log is not None
        if not played.log.endswith(b"\n"):
            return "it is cut off (no final newline)"
        try:
            end = orjson.loads(played.log.rstrip(b"\n").rsplit(b"\n", 1)[-1])
        except orjson.JSONDecodeError:
            return "its last line is not JSON"
        if not isinstance(end, dict) or end.get("type") != "end":
            return "it has no end record"
        chain, mac = end.get("chain"), end.get("hmac")
        if chain != played.log_chain:
            return "its last chain hash is not the one its server recorded at the end"
        if not isinstance(chain, str) or not isinstance(mac, str):
            return "its end record is not signed"
        if not self.key.verify(chain, mac):
            return (
                f"it is signed with another log key (key id {end.get('key_id')}, this "
                f"driver's is {self.key.key_id}): give every node the same key "
                "(TAUREC_LOG_KEY, or TAUREC_LOG_KEY_FILE on shared storage)"
            )
        return _other_episode(played)


def _other_episode(played: PlayedEpisode) -> str | None:
    """Why the log is not the episode it is handed back as (its header names another task,
    trial or episode id, or another task's folder), or None. A signed log of one episode
    must never be recorded in the register as another's."""
    assert played.log is not None
    try:
        header = orjson.loads(played.log.split(b"\n", 1)[0])
    except orjson.JSONDecodeError:
        return "its first line is not JSON"
    if not isinstance(header, dict) or header.get("type") != "header":
        return "it has no header record"
    spec = played.spec
    found = (header.get("task_id"), header.get("trial"), header.get("episode_id"))
    if found != (spec.task_id, spec.trial, played.episode_id):
        return (
            f"its header is task {found[0]!r} trial {found[1]!r} episode {found[2]!r}, "
            f"handed back as task {spec.task_id!r} trial {spec.trial} episode "
            f"{played.episode_id!r}"
        )
    if PurePosixPath(played.log_name or "").parts[:-1] != (spec.task_id,):
        return f"its name {played.log_name!r} is not in the folder of task {spec.task_id!r}"
    return None


def _write_new(target: Path, data: bytes) -> None:
    """Write `target` whole: under a temporary dot name first, synced, then linked into
    place; FileExistsError (an OSError) when `target` exists. A crash leaves at most the
    temporary file, which no log search picks up."""
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.part")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.link(temp, target)
    finally:
        temp.unlink(missing_ok=True)
