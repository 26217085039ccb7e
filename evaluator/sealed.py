"""Scoring a sealed run by its plan: every planned episode counts, whatever is on disk.

For each run register found, every planned (task, trial) is scored from the log of its
latest attempt, and counts as a failure (reward 0, listed by reason) when that log is
missing, unreadable, fails its hash chain (or, with a key, its signature), is not the log
the server recorded at the episode's end, or never ended. Logs that claim a plan whose
register is not among the paths, or that the register does not record, are not counted
and are reported: a run cannot be trimmed by deleting its failures, padded by adding
logs, or scored without its register.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from taurec.evaluator.defaults import MAX_LOG_BYTES
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.text import plain
from taurec.tasks.runs.register import RegisterState, read_register
from taurec.tasks.trajectory.signing import LogKey

#: How a planned episode's problem line says it counts as failed (and why, after it).
COUNTS_AS_FAILED = " counts as failed: "


@dataclass
class Register:
    path: Path
    state: RegisterState

    @property
    def plan_id(self) -> str | None:
        plan = self.state.plan or {}
        value = plan.get("plan_id")
        return value if isinstance(value, str) else None

    @property
    def suite(self) -> dict[str, Any]:
        suite = (self.state.plan or {}).get("suite")
        return suite if isinstance(suite, dict) else {}


#: A run register holds two short lines per planned episode: far below this.
MAX_REGISTER_BYTES: Final = MAX_LOG_BYTES


def read_registers(paths: list[Path], key: LogKey | None) -> tuple[list[Register], list[str]]:
    """Each register read and checked (its chain; its signatures too with `key`)."""
    registers, problems = [], []
    for path in paths:
        try:
            with path.open("rb") as f:  # never more than the cap, even if it grows meanwhile
                raw = f.read(MAX_REGISTER_BYTES + 1)
        except OSError as exc:
            problems.append(f"{path}: cannot read the run register ({exc.strerror or exc})")
            continue
        if len(raw) > MAX_REGISTER_BYTES:
            problems.append(
                f"{path}: run register larger than {MAX_REGISTER_BYTES // 2**20} MiB, the "
                "limit; not read, so none of its episodes can be scored"
            )
            continue
        state = read_register(raw, key)
        if state.plan is None:
            problems.append(
                f"{path}: run register unusable ({state.problem}): its plan cannot be read "
                "or was forged, so none of its episodes can be scored"
            )
            continue
        if state.problem is not None:
            problems.append(
                f"{path}: run register damaged at {state.problem}; only the records before "
                "it are used, and every planned episode they do not vouch for counts as failed"
            )
        if state.plan is not None:
            registers.append(Register(path, state))
    return registers, problems


def plan_specs(registers: list[Register]) -> frozenset[str]:
    """The suite specs the plans name (the evaluator may load these)."""
    return frozenset(
        str(r.suite["spec"]) for r in registers if isinstance(r.suite.get("spec"), str)
    )


@dataclass
class RunCheck:
    """What counts: `scores` (planned episodes, failed ones included, and open-mode logs);
    `excluded`: logs not counted as themselves, with why; `problems`: run-level findings;
    `runs`: one summary per sealed run; `skipped`: files that are not taurec logs at all
    (they do not make the run unclean; a planned log replaced by one counts as failed)."""

    scores: list[EpisodeScore] = field(default_factory=list)
    excluded: list[tuple[EpisodeScore, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    damaged: int = 0  # planned episodes failed because their evidence is missing or altered
    skipped: list[str] = field(default_factory=list)  # .jsonl files that are not taurec logs

    @property
    def clean(self) -> bool:
        """Nothing excluded, damaged or wrong with the run's files."""
        return not (self.excluded or self.problems or self.damaged)


def _norm(path: str | Path) -> str:
    return os.path.normpath(str(path))


def check_runs(
    scores: list[EpisodeScore],
    registers: list[Register],
    kinds: dict[str, str] | None = None,
) -> RunCheck:
    """Hold each register's plan to the scored logs. `kinds`: plan id -> the task kind of
    its suite (for episodes with no log to say it)."""
    check = RunCheck()
    # a log the register names belongs to its plan even if its header is unreadable
    referenced: dict[str, str] = {}
    for r in registers:
        if r.plan_id is not None:
            for a in r.state.attempts:
                referenced.setdefault(_norm(r.path.parent / a.log), r.plan_id)
    by_plan: dict[str, list[EpisodeScore]] = defaultdict(list)
    for s in scores:
        plan_id = referenced.get(_norm(s.path))
        if plan_id is None and s.mode == "sealed":
            plan_id = s.plan_id
        if plan_id is not None:
            by_plan[plan_id].append(s)
        elif s.not_a_log:  # a stray notes.jsonl: no agent, no episode, no open-server warning
            check.skipped.append(s.path)
        elif s.verification is not None:
            check.excluded.append((s, s.verification))
        else:
            check.scores.append(s)
    seen: set[str] = set()
    for register in registers:
        plan_id = register.plan_id
        if plan_id is None or plan_id in seen:
            check.problems.append(
                f"{register.path}: a second register of plan {plain(plan_id)} (a copy?); ignored"
            )
            continue
        seen.add(plan_id)
        _score_plan(register, by_plan.pop(plan_id, []), check, (kinds or {}).get(plan_id))
    for plan_id, orphans in by_plan.items():
        check.problems.append(
            f"{len(orphans):,} logs of sealed plan {plain(plan_id)} (e.g. {plain(orphans[0].path)}), "
            "but its run register (run.register) is not among the paths given, or is "
            "unusable: they are not counted; score the folder that holds a sound register"
        )
        check.excluded += [(s, s.verification or "its run register is missing") for s in orphans]
    return check


def _score_plan(
    register: Register, logs: list[EpisodeScore], check: RunCheck, kind: str | None
) -> None:
    plan = register.state.plan or {}
    folder = register.path.parent
    by_path = {_norm(s.path): s for s in logs}
    latest = register.state.latest()
    # every episode of a plan is of its suite's kind; a missing one takes it from the
    # suite, or else from its siblings
    kind = kind or next((s.kind for s in logs if s.verification is None), "recommendation")
    reasons: Counter[str] = Counter()
    counted = damaged = 0
    for planned in plan.get("episodes", []):
        slot = (str(planned.get("task_id")), int(planned.get("trial", -1)))
        attempt = latest.get(slot)
        score = None if attempt is None else by_path.pop(_norm(folder / attempt.log), None)
        if attempt is None:
            why = "never started" + (
                "" if register.state.problem is None else " (or not in the damaged register)"
            )
        elif score is None:
            why = f"log missing: {plain(folder / attempt.log)}"
        elif score.episode_id != attempt.episode_id:
            why = "log holds another episode"
        elif score.verification is not None:
            why = f"log fails verification: {score.verification}"
        elif score.unchained:
            why = "log unchained: it carries no hash chain"
        elif attempt.interrupted:
            why = "interrupted: the server stopped while it was open; not played again"
        elif attempt.end_reason is None:
            why = "not ended: no end in the register (still open, or the register was cut)"
        elif attempt.log_chain != score.log_chain:
            why = "log differs: not the log the server recorded at the episode's end"
        elif score.suite_sha256 is None:  # never scored: no end record, unreadable, ...
            first = score.problems[0] if score.problems else "it could not be scored"
            why = f"log incomplete or unreadable: {first}"
        elif score.suite_sha256 != register.suite.get("sha256"):
            why = "suite changed: scored against a suite other than the plan's"
        else:
            check.scores.append(score)
            counted += 1
            continue
        reasons[why.split(":")[0]] += 1
        if attempt is not None and not attempt.interrupted:
            damaged += 1
        check.scores.append(_failure(register, slot, why, score, kind))
        if score is not None:
            check.excluded.append((score, why))
    earlier = {a.episode_id for a in register.state.attempts}
    for s in by_path.values():
        if s.episode_id in earlier:
            continue  # an attempt the server cut off and that was played again: superseded
        check.excluded.append((s, "not recorded in its plan's run register"))
        reasons["logs not in the register"] += 1
    check.damaged += damaged
    check.runs.append(
        {
            "plan_id": register.plan_id,
            "label": plan.get("label"),
            "register": str(register.path),
            "suite": register.suite,
            "planned": len(plan.get("episodes", [])),
            "counted": counted,
            "failed": dict(sorted(reasons.items())),
            "attempts": len(register.state.attempts),
            "replayed": sum(a.attempt > 1 for a in latest.values()),
            "damaged": damaged,
            "register_problem": register.state.problem,
        }
    )


def _failure(
    register: Register, slot: tuple[str, int], why: str, log: EpisodeScore | None, kind: str
) -> EpisodeScore:
    """A planned episode that counts as failed (reward 0) for `why`."""
    plan = register.state.plan or {}
    suite = register.suite
    return EpisodeScore(
        path=log.path if log is not None else str(register.path),
        label=str(plan.get("label")),
        task_id=slot[0],
        trial=slot[1],
        end_reason="infra_error",
        outcome="none",
        item_id=None,
        infra_error=True,
        problems=[f"{plain(slot[0])} trial {slot[1]}{COUNTS_AS_FAILED}{why}"],
        episode_id=log.episode_id if log is not None else None,
        mode="sealed",
        plan_id=register.plan_id,
        suite_id=suite.get("id"),
        suite_spec=suite.get("spec"),
        suite_sha256=suite.get("sha256"),
        sealed_failure=why,
        kind=kind,
        complexity=log.complexity if log is not None else None,
        reveal=log.reveal if log is not None else None,
    )
