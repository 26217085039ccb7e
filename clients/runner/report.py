"""The table at the end of a run: `evaluator score OUT`, reusing the scores of the
episodes this run just played (scoring is deterministic, so that changes nothing)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.console import Console

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.evaluate import evaluate
from taurec.evaluator.logs import Resolver
from taurec.evaluator.render import print_groups, report_check
from taurec.evaluator.sealed import RunCheck


def score_out(out: Path, known: Iterable[EpisodeScore], resolver: Resolver) -> RunCheck:
    """Every log and run register under `out`, scored and held to their plans, as
    `evaluator score OUT` would (set-aside logs are named *.incomplete: not found)."""
    return evaluate([out], resolver, known={str(s.path): s for s in known})


def print_report(check: RunCheck, stdout: Console, stderr: Console) -> None:
    """The evaluator's table, then what it found wrong (see evaluator.render)."""
    print_groups(aggregate(check.scores), stdout)
    report_check(check, [p for s in check.scores for p in s.problems], None, stderr)
