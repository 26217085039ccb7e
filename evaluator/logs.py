"""Finding episode logs, resolving their suite and catalog, and scoring each one.

A log that cannot be scored (unreadable, malformed, incomplete, unknown task, task hash
mismatch) still yields an EpisodeScore marked as an infrastructure error, with its
problems, so it stays in n and in the report.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from taurec.catalog.errors import DataError
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import Catalog
from taurec.tasks.suite import Suite, load_suite
from taurec.tasks.trajectory import Trajectory
from taurec.tasks.trajectory_reader import LogProblem, ParsedLog, parse_log_bytes
from taurec.tasks.trajectory_signing import LogKey, verify_chain

from .episode import EpisodeScore
from .kinds import EVALUATOR_KINDS
from .memory import collector_paused
from .replay import Replayer


def find_logs(paths: Iterable[str | Path]) -> list[Path]:
    """Every *.jsonl file under the given files or directories, sorted (by path
    components), deduplicated. Symlinked directories are not followed."""
    found: set[str] = set()
    for p in map(Path, paths):
        if p.is_dir():
            _walk(str(p), found)
        elif p.is_file():
            found.add(str(p))
        else:
            raise FileNotFoundError(f"{p}: no such file or directory")
    # string keys: sorting 100,000 Path objects costs more than scanning the folders
    return [Path(f) for f in sorted(found, key=lambda f: f.split(os.sep))]


def _walk(folder: str, found: set[str]) -> None:
    """Add the regular *.jsonl files under `folder` (scandir's cached types: no stat)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                _walk(entry.path, found)
            elif entry.name.endswith(".jsonl") and entry.is_file():
                found.add(entry.path)


@dataclass
class SuiteContext:
    suite: Suite
    catalog: Catalog
    titles: TitleMatcher
    replayer: Replayer


@dataclass
class Resolver:
    """Loads each suite once. `suite` / `catalog` override what log headers say."""

    suite: str | None = None
    catalog: str | None = None
    replay: bool = True
    verify_key: LogKey | None = None  # set: check every log's chain and end-record HMAC
    _cache: dict[str, SuiteContext | DataError] = field(default_factory=dict)

    def context(self, spec: str | None) -> SuiteContext:
        key = self.suite or spec or "builtin"
        hit = self._cache.get(key)
        if hit is None:
            try:
                suite = load_suite(key)
                catalog = Catalog.load(self.catalog) if self.catalog else suite.catalog
                hit = SuiteContext(suite, catalog, TitleMatcher(catalog.items), Replayer(catalog))
            except DataError as exc:
                hit = exc
            self._cache[key] = hit
        if isinstance(hit, DataError):
            raise hit
        return hit


def _failed(log: ParsedLog, problems: list[str]) -> EpisodeScore:
    h = log.header
    return EpisodeScore(
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


def score_log(log: ParsedLog, resolver: Resolver) -> EpisodeScore:
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
    trajectory = Trajectory(header=header, events=log.events)
    score = EVALUATOR_KINDS.get(task.kind).score(task, trajectory, ctx, resolver, log.path)
    score.kind = task.kind
    score.episode_id = header.episode_id
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
    problem = verify_chain(raw, key)
    if problem is None and end is None:  # a chain-valid file must still be a whole episode
        problem = "no end record (incomplete or truncated log)"
    return problem


def score_file(path: Path, resolver: Resolver) -> EpisodeScore:
    """Read, parse, score and (with a verify key) verify one log file."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        problem = LogProblem(str(path), None, f"cannot read: {exc.strerror}")
        score = _failed(ParsedLog(path=str(path), problems=[problem]), [str(problem)])
        if resolver.verify_key is not None:
            score.verification = "unreadable"
        return score
    log = parse_log_bytes(raw, str(path))
    score = score_log(log, resolver)
    if resolver.verify_key is not None:
        score.verification = verification_problem(raw, log, resolver.verify_key)
    return score


def flag_copies(scores: list[EpisodeScore]) -> None:
    """With --verify: an episode id found in more than one log means a log was copied (one
    episode counted twice). Which copy came first cannot be told, so all are flagged."""
    paths: dict[str, list[str]] = {}
    for s in scores:
        if s.episode_id is not None and s.verification is None:
            paths.setdefault(s.episode_id, []).append(s.path)
    for s in scores:
        if s.episode_id is None or s.verification is not None:
            continue
        same = paths[s.episode_id]
        if len(same) > 1:
            others = ", ".join(p for p in same if p != s.path)
            s.verification = f"episode {s.episode_id} is also logged in {others} (a copied log)"


#: Below this many logs, worker start-up costs more than it saves.
PARALLEL_THRESHOLD = 2000


_Chunk = tuple[list[Path], str | None, str | None, bool, LogKey | None]

#: The parent's resolver, inherited by forked workers with its suites already loaded.
_inherited: Resolver | None = None


def _score_chunk(args: _Chunk) -> list[EpisodeScore]:
    files, suite, catalog, replay, key = args
    resolver = _inherited or Resolver(suite=suite, catalog=catalog, replay=replay, verify_key=key)
    with collector_paused():
        return [score_file(p, resolver) for p in files]


def default_workers(n_files: int) -> int:
    return 1 if n_files < PARALLEL_THRESHOLD else max(1, min(os.cpu_count() or 1, 8))


def score_files(files: list[Path], resolver: Resolver, *, workers: int = 1) -> list[EpisodeScore]:
    """Score logs in order; with workers > 1, in that many processes (same results).
    With a verify key, copies of one episode are flagged too."""
    with collector_paused():
        scores = _score_all(files, resolver, workers)
        flag_repeated_trials(scores)
        if resolver.verify_key is not None:
            flag_copies(scores)
    return scores


def flag_repeated_trials(scores: list[EpisodeScore]) -> None:
    """Two logs of one (agent label, task, trial) count as two trials of that task: the
    pass^k of that task is then computed over more trials than were run. Report it."""
    seen: dict[tuple[str, str, int], list[EpisodeScore]] = {}
    for s in scores:
        if s.trial >= 0:
            seen.setdefault((s.label, s.task_id, s.trial), []).append(s)
    for (label, task_id, trial), same in seen.items():
        if len(same) > 1:
            paths = ", ".join(s.path for s in same)
            for s in same:
                s.problems.append(
                    f"{s.path}: {len(same)} logs of label {label!r}, task {task_id}, "
                    f"trial {trial} ({paths}); each counts as a trial"
                )


def _score_all(files: list[Path], resolver: Resolver, workers: int) -> list[EpisodeScore]:
    if workers <= 1 or len(files) < 2 * workers:
        return [score_file(p, resolver) for p in files]
    # contiguous chunks keep each worker's suite cache warm; 4 per worker balance the load
    n_chunks = workers * 4
    size = -(-len(files) // n_chunks)
    chunks: list[_Chunk] = [
        (
            files[i : i + size],
            resolver.suite,
            resolver.catalog,
            resolver.replay,
            resolver.verify_key,
        )
        for i in range(0, len(files), size)
    ]
    # fork starts workers with the modules imported and the first file's suite loaded
    # (scoring it warms the resolver); spawn where fork is missing
    global _inherited
    fork = "fork" in multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if fork else "spawn")
    if fork:
        score_file(files[0], resolver)
        _inherited = resolver
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            return [score for part in pool.map(_score_chunk, chunks) for score in part]
    finally:
        _inherited = None


def score_paths(
    paths: Iterable[str | Path], resolver: Resolver, *, workers: int | None = None
) -> list[EpisodeScore]:
    files = find_logs(paths)
    return score_files(
        files, resolver, workers=default_workers(len(files)) if workers is None else workers
    )
