"""Scoring what is on disk: find the logs and run registers, score every log, then hold
sealed runs to their plans (see sealed.py). The one path `evaluator score`, `compare`
and the table at the end of `taurec run` share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from taurec.catalog.errors import DataError
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.files import find_run_files
from taurec.evaluator.logs import Resolver, default_workers, score_files
from taurec.evaluator.progress import ScoringProgress
from taurec.evaluator.sealed import Register, RunCheck, check_runs, plan_specs, read_registers
from taurec.tasks.trajectory.signing import LogKey, load_log_key


def evaluate(
    paths: Iterable[str | Path],
    resolver: Resolver,
    *,
    workers: int | None = None,
    known: Mapping[str, EpisodeScore] | None = None,
    progress: ScoringProgress | None = None,
) -> RunCheck:
    """Every log and register under `paths`, scored and checked. `known`: scores already
    computed with the same resolver, by path (they are not scored again). `progress`
    hears how many of the logs to score are done. Raises FileNotFoundError when a path
    does not exist."""
    files = find_run_files(paths)
    # a register's chain alone can be recomputed by anyone: its signatures are always
    # checked, with the log key when one can be found (--verify requires one)
    key = resolver.verify_key or available_key()
    registers, register_problems = read_registers(files.registers, key)
    if files.registers and key is None:
        register_problems.append(
            f"{len(files.registers)} run registers cannot be authenticated: no log key was "
            "found, and without it a register's plan and records could have been rewritten "
            "(a trimmed run); give the server's key: --verify --key-file FILE"
        )
    resolver = replace(resolver, allowed_specs=resolver.allowed_specs | plan_specs(registers))
    known = known or {}
    todo = [p for p in files.logs if str(p) not in known]
    fresh = {
        str(s.path): s
        for s in score_files(
            todo,
            resolver,
            workers=default_workers(len(todo)) if workers is None else workers,
            progress=progress,
        )
    }
    scores = [known.get(str(p)) or fresh[str(p)] for p in files.logs]
    check = check_runs(scores, registers, _plan_kinds(registers, resolver))
    check.problems[:0] = files.problems + register_problems
    _note_suite_tasks(check.scores, resolver)
    return check


def _note_suite_tasks(scores: list[EpisodeScore], resolver: Resolver) -> None:
    """Give each open-mode score the task ids of its suite (one tuple per suite, shared):
    pass^k under `--rules tau-rec` scores a task no log played 0, as τ-Rec does."""
    found: dict[str, tuple[str, ...] | None] = {}
    for s in scores:
        if s.mode != "open" or s.suite_spec is None or s.not_a_log:
            continue
        if s.suite_spec not in found:
            try:
                ctx = resolver.context(s.suite_spec)
                found[s.suite_spec] = tuple(t.id for t in ctx.suite.tasks)
            except DataError:
                found[s.suite_spec] = None
        s.suite_tasks = found[s.suite_spec]


def _plan_kinds(registers: list[Register], resolver: Resolver) -> dict[str, str]:
    """Plan id -> the task kind of the plan's suite, where that suite loads."""
    kinds = {}
    for r in registers:
        spec = r.suite.get("spec")
        if r.plan_id is None or not isinstance(spec, str):
            continue
        try:
            kinds[r.plan_id] = resolver.context(spec).suite.kind
        except DataError:
            continue  # its episodes fail for that reason anyway
    return kinds


def available_key() -> LogKey | None:
    """The log key, if this machine has one ($TAUREC_LOG_KEY or the key file); never made."""
    try:
        return load_log_key()
    except DataError:
        return None
