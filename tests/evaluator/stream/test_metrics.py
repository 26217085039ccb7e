"""Per-episode regret and per-label learning curves with standard errors and CIs."""

from __future__ import annotations

import math

import pytest

from taurec.evaluator.stream.metrics import (
    EpisodeOutcome,
    learning_curve,
    mean_se,
    score_choice,
    stream_summary,
)

UTILS = {"a": 80.0, "b": 72.0, "c": 72.0, "d": 40.0, "e": 10.0, "f": 5.0}


def test_regret_is_best_minus_chosen() -> None:
    out = score_choice(1, UTILS, "d", questions=2)
    assert (out.regret, out.chosen, out.best, out.questions) == (40.0, 40.0, 80.0, 2)


def test_rank_and_top_k_count_ties_at_the_better_rank() -> None:
    out = score_choice(1, UTILS, "c", 0)
    assert out.rank == 2
    assert (out.top(1), out.top(3), out.top(5)) == (False, True, True)
    assert score_choice(1, UTILS, "a", 0).top(1)


def test_no_recommendation_counts_as_regret_best() -> None:
    out = score_choice(4, UTILS, None, 0)
    assert (out.regret, out.rank) == (80.0, None)


def test_se_is_sd_with_ddof_1_over_root_n() -> None:
    mean, se = mean_se([10.0, 20.0, 30.0])
    assert mean == 20.0
    assert se == pytest.approx(10.0 / math.sqrt(3))


@pytest.mark.parametrize("values", [[7.0], []])
def test_se_is_0_for_fewer_than_two_values(values: list[float]) -> None:
    assert mean_se(values)[1] == 0.0


def outcome(index: int, regret: float, questions: int = 0) -> EpisodeOutcome:
    return EpisodeOutcome(index, regret, 80 - regret, 80.0, 1 if regret == 0 else 2, questions)


def test_the_curve_has_mean_regret_and_questions_by_episode() -> None:
    streams = [[outcome(1, 30, 4), outcome(2, 10, 2)], [outcome(1, 20, 2), outcome(2, 0, 0)]]
    curve = learning_curve(streams)
    assert [(p.episode, p.regret, p.questions, p.n) for p in curve] == [(1, 25, 3, 2), (2, 5, 1, 2)]
    assert curve[1].top1 == 0.5


def falling(n_streams: int, noise: float = 3.0) -> list[list[EpisodeOutcome]]:
    import random

    rng = random.Random(0)
    return [
        [outcome(e, max(0.0, 40 - 3 * e + rng.gauss(0, noise))) for e in range(1, 11)]
        for _ in range(n_streams)
    ]


def flat(n_streams: int, seed: int = 2) -> list[list[EpisodeOutcome]]:
    """Regret with no trend (a fixed sample: a true slope of 0 still gives a CI excluding 0
    one time in twenty, so the seed is pinned)."""
    import random

    rng = random.Random(seed)
    return [
        [outcome(e, max(0.0, 25 + rng.gauss(0, 12))) for e in range(1, 11)]
        for _ in range(n_streams)
    ]


def test_a_falling_curve_has_a_slope_ci_below_0_and_a_negative_improvement() -> None:
    report = stream_summary(falling(20))
    assert report["slope"] == pytest.approx(-3, abs=0.5)
    assert report["slope_ci"][1] < 0
    assert report["improvement_ci"][1] < 0
    assert report["improves"]


def test_a_flat_curve_has_a_slope_ci_containing_0() -> None:
    report = stream_summary(flat(30))
    low, high = report["slope_ci"]
    assert low < 0 < high
    assert not report["improves"]


def test_the_summary_reports_regret_at_episodes_5_and_10_and_the_averages() -> None:
    streams = falling(5, noise=0)
    report = stream_summary(streams)
    assert report["regret_at_5"] == pytest.approx(25)
    assert report["regret_at_10"] == pytest.approx(10)
    assert report["improvement"] == pytest.approx(10 - 37)
    assert report["avg_regret"] == pytest.approx(sum(40 - 3 * e for e in range(1, 11)) / 10)
    assert len(report["curve"]) == 10


def test_the_bootstrap_is_reproducible_per_seed() -> None:
    assert stream_summary(flat(8), seed=3) == stream_summary(flat(8), seed=3)


def test_repeated_trials_of_a_task_do_not_narrow_the_cis() -> None:
    once = falling(6, noise=8)
    tasks = [f"t{k}" for k in range(6)]
    four = [s for s in once for _ in range(4)]
    repeated = stream_summary(four, clusters=[t for t in tasks for _ in range(4)])
    alone = stream_summary(once, clusters=tasks)
    assert repeated["slope_ci"] == pytest.approx(alone["slope_ci"])
    assert repeated["improvement_ci"] == pytest.approx(alone["improvement_ci"])


def test_one_task_gives_no_interval_and_no_verdict() -> None:
    report = stream_summary(falling(3), clusters=["t1"] * 3)
    assert all(math.isnan(v) for v in report["slope_ci"])
    assert report["improves"] is False


def test_abandoned_streams_are_reported_both_ways() -> None:
    full = [score_choice(k, UTILS, "b", 0) for k in (1, 2, 3)]  # regret 8 each
    quit_after_one = [score_choice(1, UTILS, "a", 0)] + [
        score_choice(k, UTILS, None, 0) for k in (2, 3)
    ]  # regret 0, then 80 and 80 (taurec's regret = best)
    report = stream_summary([full, quit_after_one])
    assert report["abandoned"] == 1
    assert report["avg_regret"] == pytest.approx((24 + 160) / 6)
    assert report["avg_regret_reached"] == pytest.approx(24 / 4)  # BIEL: reached only
    points = report["curve"]
    assert [p["reached"] for p in points] == [2, 1, 1]
    assert [p["regret_reached"] for p in points] == [4.0, 8.0, 8.0]
    assert [p["regret"] for p in points] == [4.0, 44.0, 44.0]
