"""The table at the end of a run: `evaluator score OUT`, reusing the scores of the
episodes this run just played (scoring is deterministic, so that changes nothing)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.evaluate import evaluate
from taurec.evaluator.labels import select_check
from taurec.evaluator.logs import Resolver
from taurec.evaluator.recommendation.rules import DEFAULT_RULES, RULES
from taurec.evaluator.render import print_groups, print_side_by_side, report_check
from taurec.evaluator.sealed import RunCheck
from taurec.tasks.suite import TAU_REC_PREFIX


def score_out(out: Path, known: Iterable[EpisodeScore], resolver: Resolver) -> RunCheck:
    """Every log and run register under `out`, scored and held to their plans, as
    `evaluator score OUT` would (set-aside logs are named *.incomplete: not found)."""
    return evaluate([out], resolver, known={str(s.path): s for s in known})


def rules_for(suite_spec: str) -> list[str]:
    """The rules profiles a run reports: every profile for a τ-Rec release, so its numbers
    stand beside τ-Rec's leaderboard; this project's own otherwise."""
    return list(RULES) if suite_spec.startswith(TAU_REC_PREFIX) else [DEFAULT_RULES]


def rescore(out: Path, resolver: Resolver, rules: str) -> RunCheck:
    """The same logs judged by another rules profile (suites stay loaded; no replay)."""
    return evaluate([out], replace(resolver, rules=rules, replay=False))


def print_report(
    check: RunCheck,
    stdout: Console,
    stderr: Console,
    others: dict[str, RunCheck] | None = None,
    run: tuple[str, str | None] | None = None,
) -> RunCheck:
    """The evaluator's table (beside the tables of `others`, the same logs under other
    rules profiles), then what it found wrong (see evaluator.render). `run`: (agent
    label, suite id): only that run's groups and findings. Returns the check shown."""

    def shown(label: str, suite_id: str | None) -> bool:
        # a stream group's label may add its protocol (" (feedback shuffled)"): labels
        # hold no space, so what follows one is such a note
        return run is None or (label.split(" (", 1)[0], suite_id) == run

    def groups(c: RunCheck) -> list[dict[str, Any]]:
        # every group is aggregated (a stream run is paired with its control run), then chosen
        return [g for g in aggregate(c.scores) if shown(g["label"], g["suite"].get("id"))]

    if others:
        by_rules = {check.scores[0].rules if check.scores else DEFAULT_RULES: groups(check)}
        by_rules.update({name: groups(c) for name, c in others.items()})
        print_side_by_side(by_rules, stdout)
    else:
        print_groups(groups(check), stdout)
    check = select_check(check, lambda s: shown(s.label, s.suite_id))
    report_check(check, [p for s in check.scores for p in s.problems], None, stderr)
    return check
