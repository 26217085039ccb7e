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
from taurec.evaluator.render import print_groups, print_side_by_side
from taurec.evaluator.rules import RULES
from taurec.tasks.suite import TAU_REC_PREFIX

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


def rules_for(suite_spec: str) -> list[str]:
    """The rules profiles a run reports: every profile for a τ-Rec release, so its numbers
    stand beside τ-Rec's leaderboard; this project's own otherwise."""
    return list(RULES) if suite_spec.startswith(TAU_REC_PREFIX) else ["taurec"]


def rescore(scores: list[EpisodeScore], resolver: Resolver, rules: str) -> list[EpisodeScore]:
    """The same logs judged by another rules profile."""
    again = Resolver(suite=resolver.suite, catalog=resolver.catalog, replay=False, rules=rules)
    files = [Path(s.path) for s in scores]
    return score_files(files, again, workers=default_workers(len(files)))


def print_report(
    scores: list[EpisodeScore],
    stdout: Console,
    stderr: Console,
    others: dict[str, list[EpisodeScore]] | None = None,
) -> None:
    """The evaluator's table (beside the tables of `others`, scores of the same logs under
    other rules profiles), then its problems (at most SHOWN_PROBLEMS of them)."""
    if others:
        by_rules = {scores[0].rules if scores else "taurec": aggregate(scores)}
        by_rules.update({name: aggregate(s) for name, s in others.items()})
        print_side_by_side(by_rules, stdout)
    else:
        print_groups(aggregate(scores), stdout)
    problems = [p for s in scores for p in s.problems]
    for p in problems[:SHOWN_PROBLEMS]:
        stderr.print(f"[yellow]problem:[/yellow] {escape(p)}")
    if len(problems) > SHOWN_PROBLEMS:
        stderr.print(f"[yellow]... and {len(problems) - SHOWN_PROBLEMS} more problems[/yellow]")
