"""Choosing agent labels: `--label PATTERN` (shell-style, repeatable) on the evaluator's
commands, and `taurec run` showing only its own run.

Scoring always reads the whole folder (a sealed run is held to its plan, a stream run is
paired with its control run); a filter only chooses what is shown afterwards, so a
label's numbers are the same with or without it. What concerns the folder's files as a
whole (an unreadable register, logs without their register) is shown whatever the filter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.sealed import RunCheck
from taurec.evaluator.text import plain

#: labels listed in a "matches no label" error; the rest are counted
LISTED = 20


@dataclass(frozen=True)
class LabelFilter:
    """Labels matching any of `patterns` (fnmatch, case-sensitive); none: every label."""

    patterns: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, label: str) -> bool:
        return not self.patterns or any(fnmatchcase(label, p) for p in self.patterns)

    def unmatched(self, labels: Iterable[str]) -> list[str]:
        """The patterns that match none of `labels`."""
        found = set(labels)
        return [p for p in self.patterns if not any(fnmatchcase(label, p) for label in found)]


def no_match_message(pattern: str, labels: Iterable[str]) -> str:
    """The one line for a --label that matches nothing, listing the labels there are."""
    found = sorted(set(labels))
    if not found:
        return f"--label {plain(pattern)!r} matches no label: the logs hold none"
    shown = ", ".join(plain(label) for label in found[:LISTED])
    more = f" and {len(found) - LISTED} more" if len(found) > LISTED else ""
    return f"--label {plain(pattern)!r} matches no label; labels here: {shown}{more}"


def labels_of(check: RunCheck) -> set[str]:
    """Every agent label among the scored and the excluded logs."""
    return {s.label for s in check.scores} | {s.label for s, _ in check.excluded}


def select_check(check: RunCheck, keep: Callable[[EpisodeScore], bool]) -> RunCheck:
    """The part of `check` about the episodes `keep` accepts: their scores and exclusions,
    the sealed runs they belong to, and the run problems that are not about another run's
    register (problems no run can be told from are kept)."""
    scores = [s for s in check.scores if keep(s)]
    kept_plans = {s.plan_id for s in scores if s.plan_id}
    runs = [r for r in check.runs if r.get("plan_id") in kept_plans]
    others = tuple(str(r["register"]) for r in check.runs if r not in runs and r.get("register"))
    return replace(
        check,
        scores=scores,
        excluded=[(s, why) for s, why in check.excluded if keep(s)],
        problems=[p for p in check.problems if not (others and p.startswith(others))],
        runs=runs,
        damaged=sum(int(r.get("damaged", 0)) for r in runs),
    )


def counted(check: RunCheck) -> list[EpisodeScore]:
    """The episodes scored from a log against their task (a planned episode that failed
    for want of its log, or a log whose suite or task could not be loaded, is not)."""
    return [s for s in check.scores if s.sealed_failure is None and s.suite_sha256 is not None]


def nothing_counted(check: RunCheck) -> str | None:
    """Why not one log could be counted (one line), or None when some were."""
    if counted(check):
        return None
    # a run problem (an unusable register, say) is the cause of the exclusions it brings
    reasons = [*check.problems, *(why for _, why in check.excluded)]
    reasons += [s.sealed_failure or (s.problems[0] if s.problems else "") for s in check.scores]
    reasons = [r for r in reasons if r] or ["no episode was scored"]
    return f"not one log could be counted; the first reason: {plain(reasons[0])}"
