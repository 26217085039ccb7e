"""Finding episode logs, resolving their suite and catalog, and scoring each one.

A log that cannot be scored (unreadable, malformed, incomplete, unknown task, task hash
mismatch) still yields an EpisodeScore marked as an infrastructure error, with its
problems, so it stays in n and in the report.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taurec.catalog.errors import DataError
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episode_end import note_end
from taurec.evaluator.files import find_logs
from taurec.evaluator.kinds import EVALUATOR_KINDS
from taurec.evaluator.memory import collector_paused
from taurec.evaluator.model_usage import note_model_usage
from taurec.evaluator.parallel import score_in_processes
from taurec.evaluator.progress import ScoringProgress
from taurec.evaluator.recommendation.dialogue import note_dialogue
from taurec.evaluator.resolver import Resolver, SuiteContext
from taurec.evaluator.text import plain
from taurec.tasks.trajectory.format import Header, Trajectory
from taurec.tasks.trajectory.reader import LogProblem, ParsedLog, parse_log_bytes
from taurec.tasks.trajectory.signing import LogKey, is_chained, last_chain, verify_chain

__all__ = [
    "Resolver",
    "SuiteContext",
    "find_logs",
    "score_file",
    "score_files",
    "score_log",
    "score_paths",
]


def _failed(log: ParsedLog, problems: list[str]) -> EpisodeScore:
    h = log.header
    score = EpisodeScore(
        path=log.path,
        episode_id=h.episode_id if h else None,
        label=h.agent.label if h else "(unreadable)",
        task_id=h.task_id if h else "(unknown)",
        trial=h.trial if h else -1,
        end_reason="infra_error",
        outcome="none",
        item_id=None,
        infra_error=True,
        problems=problems,
    )
    if h is not None:
        _note_header(score, h)
    note_end(score, log.events)
    score.not_a_log = log.foreign
    return score


def _note_header(score: EpisodeScore, header: Header) -> None:
    score.mode = header.mode or "open"
    score.plan_id = header.plan_id
    score.suite_id = header.suite.id
    score.suite_spec = header.suite.spec
    score.agent_model = header.agent.model
    score.agent_identity = header.agent.identity()
    score.started_at = header.started_at.isoformat(timespec="seconds")


def resolve_task(log: ParsedLog, resolver: Resolver) -> tuple[SuiteContext, Any] | EpisodeScore:
    """The loaded suite and the task a clean log was played on, or the failed score saying
    why there are none (a problem in the log, a suite that cannot load, a task that is not
    in it or has changed since it was run)."""
    if log.problems or log.header is None:
        return _failed(log, [str(p) for p in log.problems])
    header = log.header
    try:
        ctx = resolver.context(header.suite.spec or header.suite.id)
    except DataError as exc:
        return _failed(log, [f"{log.path}: cannot load the suite: {exc}"])
    task = ctx.suite.get(header.task_id)
    if task is None:
        return _failed(
            log, [f"{log.path}: task {header.task_id!r} is not in suite {ctx.suite.id!r}"]
        )
    if task.sha256() != header.task_sha256:
        return _failed(
            log,
            [
                f"{log.path}: task {task.id!r} differs from the task as run (sha256 mismatch); the suite changed"
            ],
        )
    return ctx, task


def score_log(log: ParsedLog, resolver: Resolver, *, signed: bool = False) -> EpisodeScore:
    """`signed`: the end record's HMAC verified with the server's key. A sealed log's
    logged read-only results are then not replayed where the kind only replays to check
    them (`EvaluatorKind.signed_skips_replay`): the signature proves the server wrote
    them. Unsigned, unverified and open-mode logs are replayed."""
    found = resolve_task(log, resolver)
    if isinstance(found, EpisodeScore):
        return found
    ctx, task = found
    header = log.header
    assert header is not None  # resolve_task has a header to read
    trajectory = Trajectory(header=header, events=log.events)
    kind = EVALUATOR_KINDS.get(task.kind)
    trusted = signed and header.mode == "sealed" and resolver.replay and kind.signed_skips_replay
    scorer = resolver.without_replay() if trusted else resolver
    score = kind.score(task, trajectory, ctx, scorer, log.path)
    if trusted:
        score.replay = "signed"
    score.kind = task.kind
    score.episode_id = header.episode_id
    _note_header(score, header)
    score.suite_id, score.suite_spec, score.suite_sha256 = ctx.suite.id, ctx.spec, ctx.sha256
    note_dialogue(score, task, trajectory, ctx.catalog)
    note_model_usage(score, trajectory.events)
    note_end(score, trajectory.events)
    score.graded = kind.graded
    return score


def verification_problem(raw: bytes, log: ParsedLog, key: LogKey) -> str | None:
    """Why this log fails verification against `key`, or None when it is intact and
    signed by it."""
    if log.header is None:
        return "no readable header (dropped or damaged): cannot tell whose episode this is"
    end = log.events[-1] if log.events and log.events[-1]["type"] == "end" else None
    if end is not None and end.get("key_id") not in (None, key.key_id):
        return (
            f"signed with another key (key_id {end['key_id']}); the key given "
            f"({key.source}) has key_id {key.key_id}"
        )
    problem = verify_chain(raw, key, version=log.header.format_version)
    if problem is None and end is None:  # a chain-valid file must still be a whole episode
        problem = "no end record (incomplete or truncated log)"
    return problem


def _unreadable(path: Path, why: str) -> EpisodeScore:
    problem = LogProblem(str(path), None, why)
    score = _failed(ParsedLog(path=str(path), problems=[problem]), [str(problem)])
    score.verification = why
    return score


def _read_whole(path: Path, limit: int) -> bytes | int:
    """The file's bytes, or its size when that is over `limit` (then nothing is read):
    one open, its size, one read (more only when a read comes back short)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            return size
        raw = os.read(fd, size)
        while len(raw) < size:
            more = os.read(fd, size - len(raw))
            if not more:
                break
            raw += more
        return raw
    finally:
        os.close(fd)


@dataclass(frozen=True)
class CheckedLog:
    """A log as read and checked before scoring: its bytes, the parsed log, why it failed
    verification (None: it passed) and whether it has no chain at all."""

    raw: bytes
    log: ParsedLog
    verification: str | None
    unchained: bool


def read_and_check(path: Path, resolver: Resolver) -> CheckedLog | EpisodeScore:
    """What `score_file` does before scoring: read the file (within the size limit), parse
    and validate every line, and check the hash chain (with a verify key, the HMAC too);
    the failed score when the file cannot be read."""
    try:
        raw = _read_whole(path, resolver.max_log_bytes)
    except OSError as exc:
        return _unreadable(path, f"cannot read: {exc.strerror or exc}")
    if isinstance(raw, int):
        return _unreadable(
            path,
            f"{raw:,} bytes, over the evaluator's limit of {resolver.max_log_bytes:,} "
            "(--max-log-mb); not read",
        )
    log = parse_log_bytes(raw, str(path), lazy=True)  # payloads: payloads.payload
    key = resolver.verify_key
    verification, unchained = None, False
    if key is not None:  # first: a log it passes is not replayed (see score_log)
        verification = verification_problem(raw, log, key)
    elif is_chained(raw):
        version = log.header.format_version if log.header is not None else None
        verification = verify_chain(raw, None, require_signature=False, version=version)
    else:
        unchained = True
    return CheckedLog(raw, log, verification, unchained)


def score_file(path: Path, resolver: Resolver) -> EpisodeScore:
    """Read, parse, score and verify one log file. Every log's hash chain is checked (no
    key needed): an edited, reordered or spliced chained log fails verification. With a
    verify key, the end record's HMAC is checked too, and unchained logs fail."""
    checked = read_and_check(path, resolver)
    if isinstance(checked, EpisodeScore):
        return checked
    signed = resolver.verify_key is not None and checked.verification is None
    score = score_log(checked.log, resolver, signed=signed)
    score.log_chain = last_chain(checked.raw)
    score.verification, score.unchained = checked.verification, checked.unchained
    return score


#: Paths named in one grouped report; the rest are counted.
SHOWN_PATHS = 3


def _some(paths: list[str]) -> str:
    shown = ", ".join(plain(p) for p in paths[:SHOWN_PATHS])
    more = len(paths) - SHOWN_PATHS
    return shown + (f" and {more:,} more" if more > 0 else "")


def flag_copies(scores: list[EpisodeScore]) -> None:
    """An episode id found in more than one log means a log was copied (one episode
    counted twice). Which copy came first cannot be told, so all are flagged (one
    message per episode id, naming a few paths: linear in the number of logs)."""
    same: dict[str, list[EpisodeScore]] = {}
    for s in scores:
        if s.episode_id is not None and s.verification is None:
            same.setdefault(s.episode_id, []).append(s)
    for episode_id, copies in same.items():
        if len(copies) > 1:
            message = (
                f"episode {plain(episode_id)} is logged {len(copies):,} times "
                f"({_some([c.path for c in copies])}): copied logs"
            )
            for s in copies:
                s.verification = message


#: Below this many logs, worker start-up costs more than it saves.
PARALLEL_THRESHOLD = 2000


def default_workers(n_files: int) -> int:
    return 1 if n_files < PARALLEL_THRESHOLD else max(1, min(os.cpu_count() or 1, 8))


def score_files(
    files: list[Path],
    resolver: Resolver,
    *,
    workers: int = 1,
    progress: ScoringProgress | None = None,
) -> list[EpisodeScore]:
    """Score logs in order; with workers > 1, in that many processes (same results).
    With a verify key, copies of one episode are flagged too. `progress` hears (logs
    scored, logs in all) every PROGRESS_EVERY logs, or every chunk a worker returns, and
    at the end."""
    with collector_paused():
        scores = _score_all(files, resolver, workers, progress or _silent)
        flag_copies(scores)
        flag_repeated_trials(scores)
    return scores


def flag_repeated_trials(scores: list[EpisodeScore]) -> None:
    """Two logs of one (agent label, task, trial) in one report group
    (`EpisodeScore.report_group`) count as two trials of that task: its pass^k is then
    computed over more trials than were run. Report it once per trial, on the first of
    its logs, naming a few of the others. Two runs scored together each keep their own
    trials."""
    seen: dict[tuple[str, ...], list[EpisodeScore]] = {}
    for s in scores:
        if s.trial >= 0 and s.verification is None:
            seen.setdefault((*s.report_group, s.task_id, str(s.trial)), []).append(s)
    for same in seen.values():
        if len(same) > 1:
            first = same[0]
            first.problems.append(
                f"{len(same):,} logs of label {plain(first.label)!r}, task "
                f"{plain(first.task_id)}, trial {first.trial} ({_some([s.path for s in same])}); "
                "each counts as a trial"
            )


#: How often a single process reports progress, in logs.
PROGRESS_EVERY = 250


def _silent(done: int, total: int) -> None:
    return None


def _score_all(
    files: list[Path], resolver: Resolver, workers: int, progress: ScoringProgress
) -> list[EpisodeScore]:
    total = len(files)
    scores: list[EpisodeScore] = []
    if workers <= 1 or total < 2 * workers:
        for start in range(0, total, PROGRESS_EVERY):
            scores.extend(score_file(p, resolver) for p in files[start : start + PROGRESS_EVERY])
            progress(len(scores), total)
        return scores
    return score_in_processes(files, resolver, workers, progress, score_file)


def score_paths(
    paths: Iterable[str | Path],
    resolver: Resolver,
    *,
    workers: int | None = None,
    progress: ScoringProgress | None = None,
) -> list[EpisodeScore]:
    files = find_logs(paths)
    return score_files(
        files,
        resolver,
        workers=default_workers(len(files)) if workers is None else workers,
        progress=progress,
    )
