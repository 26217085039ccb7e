"""The bounds bench/evaluator_speed.py times beside `evaluator score`: floors (reading the
logs, parsing them) and ceilings (every check made before scoring, nothing scored).

`checks_only` stands in for `evaluator.logs.score_file`: it reads the log, parses and
validates every event with the evaluator's reader, checks the hash chain and, with a
key, the HMAC (--verify), loads the suite the header names (once per resolver, as
scoring does) and finds the task and checks its hash (the same functions `score_file`
calls); then it returns the plainest EpisodeScore instead of scoring. `fast_checks` does
the same with the fastest reader the bench can build (bench/fast_reader.py). Run through
the same process pool as the real rows, the faster of the two is the most any scoring
could reach with these checks on: a target above it cannot be met by faster scoring.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from fast_reader import fast_read  # a bench beside it, not a package

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import read_and_check, resolve_task, score_log
from taurec.evaluator.memory import collector_paused
from taurec.evaluator.parallel import ScoreFile, score_in_processes
from taurec.evaluator.resolver import Resolver
from taurec.tasks.trajectory.signing import last_chain, verify_chain


def read_only(files: list[Path]) -> int:
    """Each file read whole: the least any scorer does."""
    return sum(len(f.read_bytes()) for f in files)


def read_and_parse(files: list[Path]) -> int:
    """Each file read and every line parsed by orjson, no field checked."""
    n = 0
    for f in files:
        for line in f.read_bytes().splitlines():
            orjson.loads(line)
            n += 1
    return n


def _plain(path: Path, header_id: str, label: str, task: str, trial: int) -> EpisodeScore:
    return EpisodeScore(
        path=str(path),
        episode_id=header_id,
        label=label,
        task_id=task,
        trial=trial,
        end_reason="recommended",
        outcome="none",
        item_id=None,
        infra_error=False,
    )


def checks_only(path: Path, resolver: Resolver) -> EpisodeScore:
    """Every check `score_file` makes, and the suite's load, but no scoring: its own
    `read_and_check` and `resolve_task`, then the plainest score."""
    checked = read_and_check(path, resolver)
    if isinstance(checked, EpisodeScore):
        raise SystemExit(f"{path}: {'; '.join(checked.problems)}")
    found = resolve_task(checked.log, resolver)
    if isinstance(found, EpisodeScore):
        raise SystemExit(f"{path}: {'; '.join(found.problems)}")
    h = checked.log.header
    assert h is not None  # resolve_task had one
    score = _plain(path, h.episode_id, h.agent.label, h.task_id, h.trial)
    score.verification = checked.verification
    return score


def fast_checks(path: Path, resolver: Resolver) -> EpisodeScore:
    """`checks_only` with the fastest reader: read, decode with every field check
    (payloads kept as bytes), the chain and (with a key) the HMAC, the suite's load, the
    task and its hash."""
    raw = path.read_bytes()
    read = fast_read(raw)
    if read is None:
        raise SystemExit(f"{path}: the fastest reader refused it")
    h = read[0]
    key = resolver.verify_key
    problem = verify_chain(raw, key, require_signature=key is not None, version=h.format_version)
    task = resolver.context(h.suite.spec or h.suite.id).suite.get(h.task_id)
    if task is None or task.sha256() != h.task_sha256:
        raise SystemExit(f"{path}: task {h.task_id} not found or changed")
    score = _plain(path, h.episode_id, h.agent.label, h.task_id, h.trial)
    score.verification = problem
    return score


def every_check(path: Path, resolver: Resolver) -> EpisodeScore:
    """`score_file` with every check on: the chain and, with a key, the HMAC, then replay
    of every log's read-only calls, signed or not (`evaluator score --verify` skips replay
    for sealed logs whose HMAC verifies; `evaluator score` without it checks no HMAC)."""
    checked = read_and_check(path, resolver)
    if isinstance(checked, EpisodeScore):
        return checked
    score = score_log(checked.log, resolver, signed=False)
    score.log_chain = last_chain(checked.raw)
    score.verification, score.unchained = checked.verification, checked.unchained
    return score


def run_all(files: list[Path], resolver: Resolver, workers: int, one: ScoreFile) -> int:
    """`one` over `files` in `workers` processes, as `score_files` runs them; how many
    logs failed a check (none should)."""

    def silent(done: int, total: int) -> None:
        return None

    with collector_paused():  # as score_files runs
        if workers <= 1:
            scores = [one(p, resolver) for p in files]
        else:
            scores = score_in_processes(files, resolver, workers, silent, one)
    return sum(s.verification is not None or s.infra_error or bool(s.problems) for s in scores)
