"""A stream suite's statistics: the spread of utilities within choice sets (exact on
hand-made sets), and its shape."""

from __future__ import annotations

import math

import pytest
from support.streams import make_stream

from taurec.tasks.stream.statistics import suite_statistics, utility_statistics
from taurec.tasks.stream.task import FeedbackKind, StreamSetting

#: SDs 50, 30, 0; bests 100 (alone), 90 (tied), 60 (tied); means 50, 60, 60.
SETS = [[0.0, 100.0], [90.0, 90.0, 30.0, 30.0], [60.0, 60.0, 60.0]]


def test_the_within_set_sd_is_the_population_sd_its_mean_and_median() -> None:
    stats = utility_statistics(SETS)
    assert stats.episodes == 3
    assert stats.sd_mean == pytest.approx(80 / 3)
    assert stats.sd_median == 30.0


def test_tied_and_ceiling_bests_are_shares_of_episodes() -> None:
    stats = utility_statistics(SETS)
    assert stats.tied_best == pytest.approx(2 / 3)
    assert stats.best_at_ceiling == pytest.approx(1 / 3)
    assert stats.mean_best == pytest.approx(250 / 3)


def test_randoms_regret_is_the_mean_of_best_minus_the_sets_mean() -> None:
    assert utility_statistics(SETS).random_regret == pytest.approx((50 + 30 + 0) / 3)


def test_no_sets_give_nan_figures() -> None:
    stats = utility_statistics([])
    assert stats.episodes == 0 and math.isnan(stats.sd_mean) and math.isnan(stats.random_regret)


def test_a_suites_shape_is_counted_by_setting_feedback_and_source() -> None:
    tasks = [
        make_stream(StreamSetting.VARIABLE_CATEGORY, FeedbackKind.REGRET, episodes=3),
        make_stream(StreamSetting.VARIABLE_PERSONA, FeedbackKind.STARS, episodes=3),
    ]
    stats = suite_statistics(tasks)
    assert stats.streams_per_setting == {"variable_category": 1, "variable_persona": 1}
    assert (stats.episodes, stats.episodes_per_stream) == (6, [3])
    assert stats.feedback == {"regret": 1, "stars": 1}
    assert stats.utility_source == {"preference_model": 2}
    sets = [[e.utilities[i] for i in e.item_ids] for t in tasks for e in t.episodes]
    assert stats.utilities == utility_statistics(sets)
    assert stats.by_setting["variable_persona"] == utility_statistics(sets[3:])
    sizes = [len(s) for s in sets]
    assert (stats.set_size_min, stats.set_size_max) == (min(sizes), max(sizes))


def test_a_suite_of_no_streams_is_refused() -> None:
    with pytest.raises(ValueError, match="expected at least one"):
        suite_statistics([])
