"""Generating stream suites: settings, skipped low-best pairs, determinism."""

from __future__ import annotations

import pytest
from support.streams import categories, make_stream, movie_items, personas

from taurec.catalog.choice_sets import Category
from taurec.tasks.stream.generator import GenerationError, StreamPlan, generate_streams
from taurec.tasks.stream.task import MIN_BEST_UTILITY, FeedbackKind, StreamSetting, stream_checks


def test_variable_category_keeps_one_customer_across_distinct_categories() -> None:
    task = make_stream(StreamSetting.VARIABLE_CATEGORY, episodes=10)
    assert len(task.persona_ids) == 1
    assert len(task.category_ids) == 10


def test_variable_persona_keeps_one_choice_set_across_distinct_customers() -> None:
    task = make_stream(StreamSetting.VARIABLE_PERSONA, episodes=10)
    assert len(task.category_ids) == 1
    assert len(task.persona_ids) == 10
    assert len({tuple(e.item_ids) for e in task.episodes}) == 1


def test_variable_settings_changes_both() -> None:
    task = make_stream(StreamSetting.VARIABLE_SETTINGS, episodes=10)
    assert len(task.persona_ids) > 1 and len(task.category_ids) > 1


def test_every_episode_has_a_best_utility_of_at_least_60() -> None:
    for setting in StreamSetting:
        task = make_stream(setting, episodes=10)
        assert min(e.best for e in task.episodes) >= MIN_BEST_UTILITY
        assert stream_checks(task) == []


def test_generation_is_deterministic_per_seed() -> None:
    assert make_stream(seed=3) == make_stream(seed=3)
    assert make_stream(seed=3) != make_stream(seed=4)


def test_feedback_kinds_cycle_over_the_streams_of_a_setting() -> None:
    plan = StreamPlan(
        settings=(StreamSetting.VARIABLE_CATEGORY,),
        n=4,
        episodes=2,
        feedback=(FeedbackKind.REGRET, FeedbackKind.STARS),
    )
    tasks = generate_streams(movie_items(), personas(), categories(), plan)
    assert [t.feedback for t in tasks] == [FeedbackKind.REGRET, FeedbackKind.STARS] * 2
    assert len({t.id for t in tasks}) == 4


def test_too_few_categories_for_the_episodes_asked_is_a_clear_error() -> None:
    plan = StreamPlan(settings=(StreamSetting.VARIABLE_CATEGORY,), n=1, episodes=10)
    with pytest.raises(GenerationError, match=r"found \d+ of 10 episodes"):
        generate_streams(movie_items(), personas(), categories()[:3], plan)


def test_a_category_naming_an_unknown_item_is_refused() -> None:
    bad = Category(id="x", name="X", item_ids=[f"nope{k}" for k in range(15)])
    with pytest.raises(GenerationError, match="names item 'nope0'"):
        generate_streams(movie_items(), personas(), [bad], StreamPlan(n=1))
