"""What the report is drawn from: the groups `evaluator score --json` reports, the
episodes behind each, and the judge's scores when a judge has run.

A series is one group (an agent label in one run of one kind); its name is the label,
with the run added when a label has several runs of the same kind.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean, stdev
from typing import Any, Protocol

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.report.links import EpisodeLinks


class JudgeScoreLike(Protocol):
    """One aspect of one episode as the judge store gives it (contract C)."""

    mean: float
    failures: int


#: episode id -> aspect -> score
Judgements = Mapping[str, Mapping[str, JudgeScoreLike]]

GroupKey = tuple[str, str, str, str, str]


def score_key(s: EpisodeScore) -> GroupKey:
    """The group an episode is aggregated in (as aggregate.aggregate groups them)."""
    return s.report_group


def group_key(g: Mapping[str, Any]) -> GroupKey:
    return (g["label"], g["mode"], g.get("plan_id") or "", g["suite"].get("id") or "", g["kind"])


@dataclass
class Series:
    name: str
    group: dict[str, Any]
    scores: list[EpisodeScore]

    @property
    def kind(self) -> str:
        return str(self.group["kind"])


@dataclass
class ReportData:
    series: list[Series]
    judgements: Judgements = field(default_factory=dict)
    links: EpisodeLinks | None = None  # where failed episodes link to; None: no links
    colours: dict[str, str] = field(init=False)  # series name -> its colour in every plot

    def __post_init__(self) -> None:
        from taurec.evaluator.report.plots import series_colours

        self.colours = series_colours(s.name for s in self.series)

    def of_kind(self, kind: str) -> list[Series]:
        return [s for s in self.series if s.kind == kind]


def _run_name(g: Mapping[str, Any]) -> str:
    if g.get("plan_id"):
        return f"run {str(g['plan_id'])[:8]}"
    return f"open, suite {g['suite'].get('id') or '?'}"


def report_data(
    groups: list[dict[str, Any]],
    scores: Iterable[EpisodeScore],
    judgements: Judgements,
    links: EpisodeLinks | None = None,
) -> ReportData:
    by_key: dict[GroupKey, list[EpisodeScore]] = defaultdict(list)
    for s in scores:
        by_key[score_key(s)].append(s)
    series = [
        Series(name, g, by_key.get(group_key(g), []))
        for name, g in zip(series_names(groups), groups, strict=True)
    ]
    return ReportData(series, judgements, links)


def series_names(groups: list[dict[str, Any]]) -> list[str]:
    """Each group's name in the report, one per group and no two alike (a plot's colours
    and legend go by name): its label, with its kind when the label has groups of
    several kinds, and its run when it has several runs of one kind."""
    kinds_of: dict[str, set[str]] = defaultdict(set)
    runs_of: dict[tuple[str, str], int] = defaultdict(int)
    for g in groups:
        kinds_of[g["label"]].add(g["kind"])
        runs_of[(g["label"], g["kind"])] += 1
    names: list[str] = []
    for g in groups:
        extra = [str(g["kind"])] if len(kinds_of[g["label"]]) > 1 else []
        if runs_of[(g["label"], g["kind"])] > 1:
            extra.append(_run_name(g))
        name = f"{g['label']} ({', '.join(extra)})" if extra else str(g["label"])
        taken, n = set(names), 2
        unique = name
        while unique in taken:  # two runs that print alike: numbered
            unique, n = f"{name} #{n}", n + 1
        names.append(unique)
    return names


def load_judgements(
    logdirs: Iterable[Path], warn: Callable[[str], None] = lambda line: None
) -> dict[str, dict[str, Any]]:
    """The judge's scores found beside the logs, when the judge store is installed and a
    judge has run; empty otherwise (the report then has no judge section). A judge file
    that is unsigned, altered or malformed is left out: `warn` gets one line naming it."""
    try:
        from taurec.evaluator.judge.store import read_judgements
    except ImportError:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for folder in logdirs:
        if folder.is_dir():
            found = read_judgements(folder)
            for line in found.skipped:
                warn(line)
            for episode, aspects in found.scores.items():
                out.setdefault(episode, {}).update(aspects)
    return out


def mean_se(values: list[float]) -> tuple[float, float, int]:
    """Mean, standard error and count of the values that are numbers (NaN skipped)."""
    kept = [v for v in values if not math.isnan(v)]
    if not kept:
        return math.nan, math.nan, 0
    se = stdev(kept) / math.sqrt(len(kept)) if len(kept) > 1 else 0.0
    return fmean(kept), se, len(kept)
