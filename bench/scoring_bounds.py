"""The bounds bench/evaluator_speed.py times beside `evaluator score`: floors (reading and
parsing the logs, with the chain, with validation) and the ceiling of its rate.

The ceiling is everything `evaluator score` must do to a log before scoring it, with
nothing scored.

`checks_only` stands in for `evaluator.logs.score_file`: it reads the log, parses and
validates every event, checks the hash chain and, with a key, the HMAC (--verify), loads
the suite the header names (once per resolver, as scoring does) and finds the task and
checks its hash; then it returns the plainest EpisodeScore instead of scoring. Run
through the same process pool as the real rows, its rate is the most any scoring could
reach with every check on: a target above it cannot be met by faster scoring.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from taurec.catalog.errors import DataError
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import _read_whole, verification_problem
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
    """Every check `score_file` makes, and the suite's load, but no scoring."""
    raw = _read_whole(path, resolver.max_log_bytes)
    if not isinstance(raw, bytes):
        raise SystemExit(f"{path}: {raw:,} bytes, over the evaluator's size limit")
    log = parse_log_bytes(raw, str(path))
    header = log.header
    if header is None or log.problems:
        raise SystemExit(f"{path}: not a clean log; score it to see its problems")
    key = resolver.verify_key
    if key is not None:
        problem = verification_problem(raw, log, key)
    else:
        problem = verify_chain(raw, None, require_signature=False, version=header.format_version)
    try:
        ctx = resolver.context(header.suite.spec or header.suite.id)
    except DataError as exc:
        raise SystemExit(f"{path}: cannot load the suite: {exc}") from exc
    task = ctx.suite.get(header.task_id)
    same = task is not None and task.sha256() == header.task_sha256
    return EpisodeScore(
        path=log.path,
        episode_id=header.episode_id,
        label=header.agent.label,
        task_id=header.task_id,
        trial=header.trial,
        end_reason="recommended",
        outcome="none",
        item_id=None,
        infra_error=not same,
        verification=problem,
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
    return sum(s.infra_error or s.verification is not None for s in scores)
