"""What a stream suite is like, as numbers: its shape and the spread of its utilities.

Pure functions of the tasks. The utility figures are the ones BIEL reports or that tell
whether a suite is a fair test of learning:

- the within-set SD: the population SD (ddof=0) of one episode's utilities, its mean and
  median over episodes (BIEL reports a within-category SD of 25.4);
- the share of episodes whose best utility is tied (two or more items at the best: a
  "best item" that is not one), and whose best is the ceiling, 100;
- the mean best utility;
- random's regret, exactly: the mean over episodes of best − the set's mean utility
  (what a uniformly random pick loses in expectation).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from taurec.tasks.stream.task import StreamTask

#: The top of the utility scale.
CEILING = 100.0


@dataclass(frozen=True)
class UtilityStatistics:
    """The spread of utilities over a set of episodes (each a choice set's utilities)."""

    episodes: int
    sd_mean: float
    sd_median: float
    tied_best: float  # share of episodes
    best_at_ceiling: float  # share of episodes
    mean_best: float
    random_regret: float


def utility_statistics(sets: Sequence[Sequence[float]]) -> UtilityStatistics:
    """The figures of the module docstring over `sets` (one list of utilities per episode;
    nan throughout when there are none)."""
    if not sets:
        nan = float("nan")
        return UtilityStatistics(0, nan, nan, nan, nan, nan, nan)
    sds = [statistics.pstdev(u) for u in sets]
    bests = [max(u) for u in sets]
    n = len(sets)
    return UtilityStatistics(
        episodes=n,
        sd_mean=statistics.fmean(sds),
        sd_median=statistics.median(sds),
        tied_best=sum(list(u).count(b) > 1 for u, b in zip(sets, bests, strict=True)) / n,
        best_at_ceiling=sum(b >= CEILING for b in bests) / n,
        mean_best=statistics.fmean(bests),
        random_regret=statistics.fmean(
            b - statistics.fmean(u) for u, b in zip(sets, bests, strict=True)
        ),
    )


@dataclass(frozen=True)
class SuiteStatistics:
    """A stream suite's shape (counts by setting, feedback, utility source; episodes;
    choice-set sizes) and its utility figures, overall and by setting."""

    streams: int
    streams_per_setting: dict[str, int]
    episodes: int
    episodes_per_stream: list[int]  # the distinct lengths, ascending
    feedback: dict[str, int]  # streams per feedback kind
    utility_source: dict[str, int]  # streams per source
    set_size_min: int
    set_size_max: int
    set_size_mean: float
    utilities: UtilityStatistics
    by_setting: dict[str, UtilityStatistics] = field(default_factory=dict)


def _sets(tasks: Sequence[StreamTask]) -> list[list[float]]:
    return [[e.utilities[i] for i in e.item_ids] for t in tasks for e in t.episodes]


def suite_statistics(tasks: Sequence[StreamTask]) -> SuiteStatistics:
    """The statistics of a stream suite's tasks (at least one)."""
    if not tasks:
        raise ValueError("no stream tasks; expected at least one")
    sizes = [len(e.item_ids) for t in tasks for e in t.episodes]
    settings = sorted({t.setting.value for t in tasks})
    return SuiteStatistics(
        streams=len(tasks),
        streams_per_setting=dict(sorted(Counter(t.setting.value for t in tasks).items())),
        episodes=len(sizes),
        episodes_per_stream=sorted({len(t.episodes) for t in tasks}),
        feedback=dict(sorted(Counter(t.feedback.value for t in tasks).items())),
        utility_source=dict(sorted(Counter(t.utility_source.value for t in tasks).items())),
        set_size_min=min(sizes),
        set_size_max=max(sizes),
        set_size_mean=statistics.fmean(sizes),
        utilities=utility_statistics(_sets(tasks)),
        by_setting={
            s: utility_statistics(_sets([t for t in tasks if t.setting.value == s]))
            for s in settings
        },
    )
