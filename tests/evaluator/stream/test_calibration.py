"""Planning runs (regret by questions asked) and calibration of stated confidences."""

from __future__ import annotations

import math

import pytest

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.stream.calibration import (
    calibration_summary,
    expected_calibration_error,
    planning_summary,
)
from taurec.evaluator.stream.episode_metrics import interim_regrets, stated_picks


def score(metrics: dict[str, float]) -> EpisodeScore:
    s = EpisodeScore(
        path="x", label="a", task_id="t", trial=0, end_reason="", outcome="", item_id=None
    )
    s.metrics = metrics
    return s


def test_ece_of_perfectly_calibrated_bins_is_0_and_of_overconfidence_its_gap() -> None:
    assert expected_calibration_error([0.25] * 4, [True, False, False, False]) == 0.0
    assert expected_calibration_error([0.9] * 10, [True] * 5 + [False] * 5) == pytest.approx(0.4)
    # two bins, each weighted by its share: |0.15 - 0| * 0.5 + |0.85 - 1| * 0.5
    assert expected_calibration_error([0.15, 0.15, 0.85, 0.85], [False, False, True, True]) == (
        pytest.approx(0.15)
    )
    assert math.isnan(expected_calibration_error([], []))


def test_interim_regrets_are_grouped_by_questions_asked() -> None:
    m = {"interim@1@1": 30.0, "interim@1@2": 10.0, "interim@2@1": 20.0, "regret@1": 0.0}
    assert interim_regrets(m) == {1: [30.0, 20.0], 2: [10.0]}
    assert planning_summary([score(m)]) == [
        {"questions": 1, "n": 2, "regret": 25.0},
        {"questions": 2, "n": 1, "regret": 10.0},
    ]


def test_calibration_compares_what_was_stated_with_what_the_picks_were() -> None:
    m = {
        # a pick stated 80% likely best that was the best (rank 1, regret 0)
        "conf@1.1:favorite": 0.8,
        "conf@1.1:top5": 1.0,
        "conf@1.1:predicted_regret": 5.0,
        "conf@1.1:within_5": 0.5,
        "conf@1.1:regret": 0.0,
        "conf@1.1:rank": 1.0,
        # one stated 60% likely best that was 12th (regret 30)
        "conf@2.1:favorite": 0.6,
        "conf@2.1:top5": 0.5,
        "conf@2.1:predicted_regret": 10.0,
        "conf@2.1:within_5": 0.5,
        "conf@2.1:regret": 30.0,
        "conf@2.1:rank": 12.0,
    }
    assert len(stated_picks(m)) == 2
    c = calibration_summary([score(m)])
    assert c is not None and c["picks"] == 2
    fav = c["favorite"]
    assert (fav["stated"], fav["observed"]) == (pytest.approx(0.7), 0.5)
    assert fav["brier"] == pytest.approx((0.2**2 + 0.6**2) / 2)
    assert c["top5"]["observed"] == 0.5
    assert c["predicted_regret"] == {"n": 2, "mae": 12.5, "bias": pytest.approx(-7.5)}
    assert c["within_5"] == {"n": 2, "stated": 0.5, "observed": 0.5}
    assert "within_10" not in c


def test_no_stated_confidence_gives_no_calibration() -> None:
    assert calibration_summary([score({"regret@1": 3.0})]) is None
