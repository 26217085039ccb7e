"""A replayed stream as flat numbers (`EpisodeScore.metrics`), and back.

Keys, for each played position k (1-based) of the stream:
- `regret@k`, `questions@k`, `rank@k` (0: nothing chosen);
- `interim@k@q`: the regret of the hidden interim pick made after q questions (planning
  runs; the last one when several were made at the same q);
- `conf@k.j:FIELD`: the confidence stated with the j-th pick (1-based, interim or final)
  of episode k, FIELD one of `Confidence`'s fields, beside `conf@k.j:regret` and
  `conf@k.j:rank`, what that pick turned out to be;
- `setting:NAME` = 1 and `feedback:MODE` = 1 (task, none, shuffled).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from taurec.evaluator.stream.metrics import EpisodeOutcome, score_choice
from taurec.tasks.stream.session import StreamSession

SETTING_PREFIX: Final = "setting:"
FEEDBACK_PREFIX: Final = "feedback:"
_INTERIM = re.compile(r"^interim@(\d+)@(\d+)$")
_CONF = re.compile(r"^conf@(\d+)\.(\d+):(\w+)$")


def episode_metrics(session: StreamSession, outcomes: Sequence[EpisodeOutcome]) -> dict[str, float]:
    """The flat metrics of a replayed stream (see the module docstring)."""
    task = session.task
    metrics: dict[str, float] = {
        f"{SETTING_PREFIX}{task.setting.value}": 1.0,
        f"{FEEDBACK_PREFIX}{session.protocol.feedback.value}": 1.0,
    }
    for o in outcomes:
        metrics[f"regret@{o.index}"] = o.regret
        metrics[f"questions@{o.index}"] = float(o.questions)
        metrics[f"rank@{o.index}"] = float(o.rank or 0)
    for position, picks in enumerate(session.picks):
        utilities = session.played(position).utilities
        k = position + 1
        for j, pick in enumerate(picks, start=1):
            scored = score_choice(k, utilities, pick.item_id, pick.questions)
            if not pick.final:
                metrics[f"interim@{k}@{pick.questions}"] = scored.regret
            if pick.confidence is None:
                continue
            stated = pick.confidence.model_dump(exclude_none=True)
            for field, value in stated.items():
                metrics[f"conf@{k}.{j}:{field}"] = float(value)
            metrics[f"conf@{k}.{j}:regret"] = scored.regret
            metrics[f"conf@{k}.{j}:rank"] = float(scored.rank or 0)
    return metrics


def interim_regrets(metrics: dict[str, float]) -> dict[int, list[float]]:
    """Questions asked -> the regrets of the interim picks made after that many."""
    out: dict[int, list[float]] = defaultdict(list)
    for key, value in metrics.items():
        if m := _INTERIM.match(key):
            out[int(m.group(2))].append(value)
    return dict(out)


@dataclass(frozen=True)
class StatedPick:
    """A pick that came with a stated confidence, and what it turned out to be."""

    stated: dict[str, float]
    regret: float
    rank: int


def stated_picks(metrics: dict[str, float]) -> list[StatedPick]:
    grouped: dict[tuple[int, int], dict[str, float]] = defaultdict(dict)
    for key, value in metrics.items():
        if m := _CONF.match(key):
            grouped[(int(m.group(1)), int(m.group(2)))][m.group(3)] = value
    out = []
    for _, fields in sorted(grouped.items()):
        regret, rank = fields.pop("regret"), int(fields.pop("rank"))
        out.append(StatedPick(fields, regret, rank))
    return out


def feedback_mode(metrics: dict[str, float]) -> str:
    """The run's feedback mode (task for logs that predate the protocol)."""
    return next(
        (k.removeprefix(FEEDBACK_PREFIX) for k in metrics if k.startswith(FEEDBACK_PREFIX)),
        "task",
    )
