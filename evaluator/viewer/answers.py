"""The answer key the viewer withholds while a task is still being played.

Rule: an episode's answer key is shown only when no episode of its task is live under
the folders viewed, or when the viewer was started with `--show-hidden`. An episode is
live while its log has no end record, and while a sealed run has it planned but not yet
ended ("never started", "not ended"). Every episode of a live task is withheld, the ended
ones too: trial 1 of a task must not read the hidden constraints that trial 0's verdicts
name.

The answer key is whatever the contestant was not told: the constraints and the item
values they were checked against, the kind's own view (a ranking's positive and its rank,
a pair's answer, a stream's regret and ranks, which come from the utilities), the metrics
and the one-line failure reason a kind derives from them, and what the simulated user's
(or NLU's) model calls were sent (their prompts hold the task). Pass/fail, reward,
policies and the conversation stay: they say how the agent did, not what the task hid.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episodes.model_calls import withhold_prompts
from taurec.evaluator.kinds import EVALUATOR_KINDS

#: Said in place of the answer key, in the list and in the episode.
WITHHELD = (
    "answer key withheld: an episode of this task is still live (no end record yet); "
    "it is shown once the task's episodes have ended, or with --show-hidden"
)
#: Sealed failures (sealed.py) of planned episodes that are still to be played or ended.
_LIVE_SEALED = ("never started", "not ended")
#: The problem parse_log_bytes reports for a log that has not ended yet.
_NO_END = "no end record"


def is_live(score: EpisodeScore) -> bool:
    """The episode is being (or is still to be) played."""
    if score.sealed_failure is not None:
        return score.sealed_failure.startswith(_LIVE_SEALED) or _NO_END in score.sealed_failure
    return any(_NO_END in p for p in score.problems)


def live_tasks(scores: Iterable[EpisodeScore]) -> frozenset[str]:
    """The ids of the tasks with a live episode (any suite: withholding too much is safe)."""
    return frozenset(s.task_id for s in scores if is_live(s))


def withhold_row(row: dict[str, Any], score: EpisodeScore) -> dict[str, Any]:
    """The list row without its answer key."""
    # a sealed or infrastructure failure says what broke, not what the task hid
    plain_failure = score.sealed_failure or (row["failure"] if score.infra_error else None)
    return {
        **row,
        "failed_constraints": [],
        "metrics": {},
        "failure": None if score.passed else plain_failure,
        "withheld": WITHHELD,
    }


def withhold_detail(doc: dict[str, Any]) -> dict[str, Any]:
    """The episode's detailed view (episode_view) without its answer key."""
    verdicts = {**doc["verdicts"], "constraints": [], "metrics": []}
    no_views = {
        kind.view.key: None
        for kind in map(EVALUATOR_KINDS.get, EVALUATOR_KINDS.names())
        if kind.view is not None
    }
    doc = withhold_prompts(doc)  # a simulated user's prompts hold its task
    return {**doc, **no_views, "verdicts": verdicts, "withheld": WITHHELD}
