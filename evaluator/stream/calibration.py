"""Planning and confidence runs (BIEL): regret per question asked, and calibration.

- Planning: the regret of the hidden interim picks by the number of questions asked
  before them (mean and n per count): does asking more help, and how fast?
- Confidence: every pick that states a confidence is checked against what it turned out
  to be. For the probability of being the customer's best item (`favorite`) and of
  being among their 5 best (`top5`): the mean stated, the observed rate, the Brier score
  and the expected calibration error (ECE: |stated − observed| per bin of ten equal
  widths, weighted by the bin's share of picks). For the predicted regret: the mean
  absolute error and the bias (predicted − actual); for `within_k`: the mean stated
  probability that the actual regret lies within k of the prediction, beside the share
  where it does.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Final

import numpy as np

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.stream.episode_metrics import StatedPick, interim_regrets, stated_picks

ECE_BINS: Final = 10
WITHIN: Final = (5, 10, 20, 30)


def planning_summary(scores: Iterable[EpisodeScore]) -> list[dict[str, Any]]:
    """Per number of questions asked: the interim picks' mean regret and their count."""
    by_count: dict[int, list[float]] = defaultdict(list)
    for s in scores:
        for q, regrets in interim_regrets(s.metrics).items():
            by_count[q].extend(regrets)
    return [
        {"questions": q, "n": len(v), "regret": float(np.mean(v))}
        for q, v in sorted(by_count.items())
    ]


def expected_calibration_error(stated: Sequence[float], observed: Sequence[bool]) -> float:
    """ECE over ten equal-width bins of the stated probability."""
    p = np.asarray(stated, dtype=float)
    y = np.asarray(observed, dtype=float)
    if p.size == 0:
        return math.nan
    bins = np.minimum((p * ECE_BINS).astype(int), ECE_BINS - 1)
    total = 0.0
    for b in np.unique(bins):
        mask = bins == b
        total += mask.mean() * abs(p[mask].mean() - y[mask].mean())
    return float(total)


def _probability(picks: list[StatedPick], field: str, hit: Any) -> dict[str, Any] | None:
    pairs = [(p.stated[field], bool(hit(p))) for p in picks if field in p.stated]
    if not pairs:
        return None
    stated = [a for a, _ in pairs]
    observed = [b for _, b in pairs]
    return {
        "n": len(pairs),
        "stated": float(np.mean(stated)),
        "observed": float(np.mean(observed)),
        "brier": float(np.mean([(a - b) ** 2 for a, b in pairs])),
        "ece": expected_calibration_error(stated, observed),
    }


def calibration_summary(scores: Iterable[EpisodeScore]) -> dict[str, Any] | None:
    """The calibration of every stated confidence of these streams (None: none stated)."""
    picks = [p for s in scores for p in stated_picks(s.metrics)]
    if not picks:
        return None
    out: dict[str, Any] = {
        "picks": len(picks),
        "favorite": _probability(picks, "favorite", lambda p: p.rank == 1),
        "top5": _probability(picks, "top5", lambda p: 1 <= p.rank <= 5),
    }
    predicted = [
        (p.stated["predicted_regret"], p.regret) for p in picks if "predicted_regret" in p.stated
    ]
    if predicted:
        errors = [a - b for a, b in predicted]
        out["predicted_regret"] = {
            "n": len(predicted),
            "mae": float(np.mean(np.abs(errors))),
            "bias": float(np.mean(errors)),
        }
    for k in WITHIN:
        field = f"within_{k}"
        rows = [
            (p.stated[field], abs(p.stated["predicted_regret"] - p.regret) <= k)
            for p in picks
            if field in p.stated and "predicted_regret" in p.stated
        ]
        if rows:
            out[field] = {
                "n": len(rows),
                "stated": float(np.mean([a for a, _ in rows])),
                "observed": float(np.mean([b for _, b in rows])),
            }
    return out
