"""One sealed run's register on disk: which planned (task, trial) may still start, each
start and end appended as a signed line, and the register reopened after a restart
(format: taurec.tasks.runs.register). The server and a distributed run's driver both
write through it."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from taurec.catalog.errors import DataError
from taurec.server.trajectory_writer import LogWriteError, append_whole
from taurec.tasks.errors import EpisodeError
from taurec.tasks.runs.plan import RunPlan
from taurec.tasks.runs.register import (
    REGISTER_NAME,
    Attempt,
    may_play_again,
    read_register,
    register_line,
)
from taurec.tasks.trajectory.secrets import scrub_optional
from taurec.tasks.trajectory.signing import GENESIS, LogKey


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class SealedRun:
    """One plan being served: its register, and what its contestant may still start."""

    def __init__(
        self,
        plan: RunPlan,
        log_dir: Path,
        key: LogKey,
        *,
        server_version: str,
    ) -> None:
        self.plan = plan
        self.folder = log_dir / plan.run_id
        self.path = self.folder / REGISTER_NAME
        self._key = key
        self._planned = set(plan.slots())
        self._latest: dict[tuple[str, int], Attempt] = {}
        self._starting: set[tuple[str, int]] = set()
        self._chain = GENESIS
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            if self.path.exists():
                self._reopen(server_version)
            else:
                self._create(server_version)
        except (OSError, LogWriteError) as exc:  # a full or read-only disk: one line, no trace
            raise DataError(f"{self.path}: cannot write the run register ({exc})") from None

    # --- admission ------------------------------------------------------------------------

    def startable(self, slot: tuple[str, int]) -> bool:
        if slot not in self._planned or slot in self._starting:
            return False
        last = self._latest.get(slot)
        return last is None or self._retryable(last)

    def remaining(self) -> list[tuple[str, int]]:
        """Planned episodes this contestant may still start, in plan order."""
        return [s for s in self.plan.slots() if self.startable(s)]

    def reserve(self, task_id: str, trial: int) -> int:
        """Claim (task, trial) for a start about to happen; its attempt number. EpisodeError
        when the plan does not hold it or it was played already."""
        slot = (task_id, trial)
        if slot not in self._planned:
            left = self.remaining()
            hint = f"e.g. {left[0][0]!r} trial {left[0][1]}" if left else "none is left"
            raise EpisodeError(
                f"task {task_id!r} trial {trial} is not in this run's plan; start a planned "
                f"episode from list_tasks ({hint})"
            )
        if not self.startable(slot):
            raise EpisodeError(
                f"task {task_id!r} trial {trial} was already played in this sealed run; each "
                "planned episode can be played once (list_tasks shows what is left)"
            )
        self._starting.add(slot)
        last = self._latest.get(slot)
        return 1 if last is None else last.attempt + 1

    def release(self, task_id: str, trial: int) -> None:
        """The start claimed by `reserve` failed before the episode existed."""
        self._starting.discard((task_id, trial))

    # --- the register ------------------------------------------------------------------------

    def started(self, task_id: str, trial: int, attempt: int, episode_id: str, log: Path) -> None:
        slot = (task_id, trial)
        self._starting.discard(slot)
        record = Attempt(task_id, trial, episode_id, attempt, str(log.relative_to(self.folder)))
        self._append(
            {
                "type": "start",
                "at": _now(),
                "task_id": task_id,
                "trial": trial,
                "attempt": attempt,
                "episode_id": episode_id,
                "log": record.log,
            }
        )
        self._latest[slot] = record  # only once on record: a failed write leaves no trace

    def ended(
        self,
        task_id: str,
        trial: int,
        episode_id: str,
        reason: str,
        detail: str | None,
        chain: str,
        *,
        cut_by_server: bool = False,
    ) -> None:
        detail = scrub_optional(detail)  # a register keeps no secret an end detail named
        last = self._latest.get((task_id, trial))
        if last is not None and last.episode_id == episode_id:
            last.end_reason, last.end_detail, last.log_chain = reason, detail, chain
            last.cut_by_server = cut_by_server
        record: dict[str, Any] = {
            "type": "end",
            "at": _now(),
            "episode_id": episode_id,
            "reason": reason,
            "log_chain": chain,
        }
        if detail is not None:
            record["detail"] = detail
        if cut_by_server:
            record["cut_by_server"] = True
        self._append(record)

    def _retryable(self, attempt: Attempt) -> bool:
        """Cut off by the server (never by anything the agent sent), and not replayed yet."""
        return may_play_again(attempt)

    def _create(self, server_version: str) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        os.close(fd)
        self._chain = GENESIS
        self._append(
            {
                "type": "plan",
                "at": _now(),
                "server_version": server_version,
                "plan": self.plan.public(),
            }
        )

    def _reopen(self, server_version: str) -> None:
        state = read_register(self.path.read_bytes(), self._key)
        if state.problem is not None:
            raise DataError(
                f"{self.path}: the run register is damaged ({state.problem}); a sealed run "
                "cannot continue on it"
            )
        if state.plan != self.plan.public():
            raise DataError(
                f"{self.path}: this register belongs to another plan (plan_id "
                f"{(state.plan or {}).get('plan_id')}); give its own plan, or another --log-dir"
            )
        self._chain = state.last_chain
        self._latest = state.latest()
        self._append({"type": "restart", "at": _now(), "server_version": server_version})
        for attempt in state.attempts:
            if not attempt.ended:
                attempt.interrupted = True
                self._append(
                    {
                        "type": "interrupted",
                        "at": _now(),
                        "episode_id": attempt.episode_id,
                        "why": "open when the server started again (it was killed or crashed)",
                    }
                )

    def _append(self, record: dict[str, Any]) -> None:
        line, chain = register_line(self._chain, record, self._key)
        append_whole(self.path, line)  # whole, or LogWriteError with the register as it was
        self._chain = chain
