"""A generated stream's episodes are balanced by default: the same episodes, reordered
so that a random pick's expected regret has (near) no slope along the stream; drawn
order (BIEL's) stays a named option and is the default over BIEL's released data."""

from __future__ import annotations

from dataclasses import replace

from support.streams import categories, make_stream, movie_items, personas

from taurec.tasks.stream.generator import StreamPlan, generate_streams
from taurec.tasks.stream.ordering import (
    MAX_SLOPE,
    EpisodeOrder,
    balanced,
    random_regret,
    trend,
)
from taurec.tasks.stream.task import StreamSetting


def test_the_trend_is_the_least_squares_slope() -> None:
    assert trend([1.0, 2.0, 3.0]) == 1.0
    assert trend([5.0]) == 0.0


def test_balancing_keeps_the_episodes_and_removes_the_trend() -> None:
    task = make_stream(episodes=10)
    ordered = balanced(task.episodes, "x")
    assert sorted(e.category_id for e in ordered) == sorted(e.category_id for e in task.episodes)
    assert abs(trend([random_regret(e) for e in ordered])) <= MAX_SLOPE


def test_balancing_is_deterministic_per_seed() -> None:
    episodes = make_stream(episodes=10).episodes
    assert balanced(episodes, "x") == balanced(episodes, "x")


def test_the_generator_balances_by_default_and_draws_as_biel_when_asked() -> None:
    plan = StreamPlan(settings=(StreamSetting.VARIABLE_CATEGORY,), n=2, episodes=8)
    default = generate_streams(movie_items(), personas(), categories(), plan)
    drawn = generate_streams(
        movie_items(), personas(), categories(), replace(plan, episode_order=EpisodeOrder.DRAWN)
    )
    for made, as_drawn in zip(default, drawn, strict=True):
        assert {e.category_id for e in made.episodes} == {e.category_id for e in as_drawn.episodes}
        assert abs(trend([random_regret(e) for e in made.episodes])) <= MAX_SLOPE
    assert [t.episodes for t in default] != [t.episodes for t in drawn]
