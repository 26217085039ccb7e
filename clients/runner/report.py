"""The table at the end of a run: `evaluator score OUT`, reusing the scores of the
episodes this run just played (scoring is deterministic, so that changes nothing)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import Resolver, default_workers, score_files
from taurec.evaluator.render import print_groups

from .plan import episode_logs

#: Problems listed in full; the rest are counted.
SHOWN_PROBLEMS = 20


def score_out(out: Path, known: Iterable[EpisodeScore], resolver: Resolver) -> list[EpisodeScore]:
    """Scores of every log under `out` (set-aside logs excluded), in path order."""
    by_path = {str(s.path): s for s in known}
    files = episode_logs(out)
    missing = [p for p in files if str(p) not in by_path]
    fresh = score_files(missing, resolver, workers=default_workers(len(missing)))
    by_path.update({str(s.path): s for s in fresh})
    return [by_path[str(p)] for p in files]


def print_report(scores: list[EpisodeScore], stdout: Console, stderr: Console) -> None:
    """The evaluator's table, then its problems (at most SHOWN_PROBLEMS of them)."""
    print_groups(aggregate(scores), stdout)
    problems = [p for s in scores for p in s.problems]
    for p in problems[:SHOWN_PROBLEMS]:
        stderr.print(f"[yellow]problem:[/yellow] {escape(p)}")
    if len(problems) > SHOWN_PROBLEMS:
        stderr.print(f"[yellow]... and {len(problems) - SHOWN_PROBLEMS} more problems[/yellow]")
