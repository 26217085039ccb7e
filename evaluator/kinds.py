"""How each task kind is scored and reported.

A kind registers one `EvaluatorKind` with `@EVALUATOR_KINDS.register(kind)`: a pure
scorer of one episode, the aggregate of one agent label's episodes, and the rows of its
table. Log reading, suite resolution, verification, parallel scoring and the report
frame (evaluator/logs.py, aggregate.py, render.py) ask this registry for the kind of
the task (or group) and never test its name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from taurec.evaluator.episode import EpisodeScore
from taurec.tasks.kinds import KindRegistry
from taurec.tasks.trajectory.format import Trajectory

if TYPE_CHECKING:
    from taurec.evaluator.resolver import Resolver, SuiteContext

#: score(task, trajectory, suite context, resolver, path) -> EpisodeScore
Scorer = Callable[[Any, Trajectory, "SuiteContext", "Resolver", str], EpisodeScore]
#: aggregate_group(label, scores, seed) -> the JSON report of one agent label
GroupAggregate = Callable[[str, list[EpisodeScore], int], dict[str, Any]]
#: summary_rows(group) -> (metric, value) rows of the terminal table
SummaryRows = Callable[[dict[str, Any]], list[tuple[str, str]]]
#: compare(groups, seed): annotate a kind's groups with what needs several of them (the
#: stream kind pairs a run with its control run)
GroupCompare = Callable[[list[dict[str, Any]], int], None]


#: item id -> its title, or None when unknown
TitleOf = Callable[[str], str | None]


@dataclass(frozen=True)
class KindView:
    """What the viewer shows of a kind's episode beyond the conversation and verdicts:
    `make(score, task, events, title_of)` gives plain JSON (None for another kind's
    episode), shown under `key`."""

    key: str
    make: Callable[[EpisodeScore, Any, list[dict[str, Any]], TitleOf], Any]


@dataclass(frozen=True)
class EvaluatorKind:
    score: Scorer
    aggregate_group: GroupAggregate
    summary_rows: SummaryRows
    view: KindView | None = None
    compare: GroupCompare | None = None
    #: the scorer replays logged read-only calls only to check their results, never to
    #: score: a sealed log whose signature verified may skip that (evaluator/logs.py)
    signed_skips_replay: bool = False
    #: an episode passes or fails (False: the kind reads its episodes as a curve, as the
    #: stream kind does; only one that ended in an error counts as failed)
    graded: bool = True


EVALUATOR_KINDS: KindRegistry[EvaluatorKind] = KindRegistry(
    "evaluator",
    (
        "taurec.evaluator.recommendation.scoring",
        "taurec.evaluator.ranking.scoring",
        "taurec.evaluator.ranking.ppr",
        "taurec.evaluator.stream.scoring",
    ),
)
