"""The bounds bench/evaluator_speed.py times beside `evaluator score`: floors (reading and
parsing the logs, with the chain, with validation) and the ceiling of its rate.

The ceiling is everything `evaluator score` must do to a log before scoring it, with
nothing scored.

`checks_only` stands in for `evaluator.logs.score_file`: it reads the log, parses and
validates every event, checks the hash chain and, with a key, the HMAC (--verify), loads
the suite the header names (once per resolver, as scoring does) and finds the task and
checks its hash (the same functions `score_file` calls); then it returns the plainest
EpisodeScore instead of scoring. Run through the same process pool as the real rows, its
rate is the most any scoring could reach with every check on: a target above it cannot
be met by faster scoring.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import read_and_check, resolve_task
from taurec.evaluator.memory import collector_paused
from taurec.evaluator.parallel import score_in_processes
from taurec.evaluator.resolver import Resolver
from taurec.tasks.trajectory.reader import parse_log_bytes
from taurec.tasks.trajectory.signing import verify_chain


def read_only(files: list[Path]) -> int:
    n = 0
    for f in files:
        for line in f.read_bytes().splitlines():
            orjson.loads(line)
            n += 1
    return n


def read_and_chain(files: list[Path]) -> int:
    """The floor plus checking each log's hash chain: the least a scorer that checks the
    chain (as `evaluator score` does for every chained log) can do, before validating or
    scoring anything."""
    bad = 0
    for f in files:
        raw = f.read_bytes()
        for line in raw.splitlines():
            orjson.loads(line)
        bad += verify_chain(raw, None, require_signature=False) is not None
    return bad


def read_parse_chain(files: list[Path]) -> int:
    """Reading, parsing and validating every event as `evaluator score` does, and the
    chain: everything before scoring proper."""
    bad = 0
    for f in files:
        raw = f.read_bytes()
        bad += not parse_log_bytes(raw, str(f)).ok
        bad += verify_chain(raw, None, require_signature=False) is not None
    return bad


def checks_only(path: Path, resolver: Resolver) -> EpisodeScore:
    """Every check `score_file` makes, and the suite's load, but no scoring: its own
    `read_and_check` and `resolve_task`, then the plainest score."""
    checked = read_and_check(path, resolver)
    if isinstance(checked, EpisodeScore):
        raise SystemExit(f"{path}: {'; '.join(checked.problems)}")
    found = resolve_task(checked.log, resolver)
    if isinstance(found, EpisodeScore):
        raise SystemExit(f"{path}: {'; '.join(found.problems)}")
    header = checked.log.header
    assert header is not None  # resolve_task had one
    return EpisodeScore(
        path=str(path),
        episode_id=header.episode_id,
        label=header.agent.label,
        task_id=header.task_id,
        trial=header.trial,
        end_reason="recommended",
        outcome="none",
        item_id=None,
        infra_error=False,
        verification=checked.verification,
    )


def checks_only_all(files: list[Path], resolver: Resolver, workers: int) -> int:
    """`checks_only` over `files` in `workers` processes, as `score_files` runs them; how
    many logs failed a check (none should)."""

    def silent(done: int, total: int) -> None:
        return None

    with collector_paused():  # as score_files runs
        if workers <= 1:
            scores = [checks_only(p, resolver) for p in files]
        else:
            scores = score_in_processes(files, resolver, workers, silent, checks_only)
    return sum(s.verification is not None for s in scores)
