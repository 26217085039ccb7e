"""Leaks between the streams of a suite: an episode whose best item another stream's
feedback to the same customer gives away (an error), customers shared by streams (a
warning with counts); the generator avoids the first unless asked to draw as BIEL does."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support.streams import categories, make_stream, movie_items, personas

import taurec.tasks.stream.generator as generator
from taurec.tasks.stream.generator import CrossStream, GenerationError, StreamPlan
from taurec.tasks.stream.leaks import stream_leaks
from taurec.tasks.stream.task import FeedbackKind, StreamSetting, StreamTask
from taurec.tasks.suite import load_suite

ONE_CUSTOMER = StreamPlan(settings=(StreamSetting.VARIABLE_CATEGORY,), n=4, episodes=5)


def streams(plan: StreamPlan, n_personas: int = 1) -> list[StreamTask]:
    return generator.generate_streams(movie_items(), personas(n_personas), categories(), plan)


def test_a_stream_shown_again_under_another_id_leaks_every_episode_both_ways() -> None:
    first = make_stream(episodes=3)
    again = first.model_copy(update={"id": "again"})
    leaks = stream_leaks([first, again])
    assert set(leaks.hard) == {first.id, "again"} and leaks.hard_episodes == 6
    assert leaks.hard["again"][0].startswith("episodes[0]: its best item ")
    assert f"of episodes[0] of stream {first.id!r} for the same customer" in leaks.hard["again"][0]


def test_a_stream_without_feedback_gives_nothing_away() -> None:
    first = make_stream(episodes=3)
    silent = first.model_copy(update={"id": "silent", "feedback": FeedbackKind.NONE})
    assert set(stream_leaks([first, silent]).hard) == {"silent"}


def test_one_stream_has_no_leak_and_no_warning() -> None:
    leaks = stream_leaks([make_stream(StreamSetting.VARIABLE_PERSONA, episodes=5)])
    assert leaks.hard == {} and leaks.warnings() == [] and leaks.personas == 5


def test_biel_drawing_leaks_and_the_default_redraws_until_it_does_not() -> None:
    drawn_as_biel = streams(replace(ONE_CUSTOMER, cross_stream=CrossStream.BIEL))
    assert stream_leaks(drawn_as_biel).hard_episodes > 0
    isolated = streams(ONE_CUSTOMER)
    leaks = stream_leaks(isolated)
    assert leaks.hard == {} and len(isolated) == 4
    (warning,) = leaks.warnings()
    assert warning.startswith("shared_personas: 1 of 1 customers appear in more than one stream")
    assert "up to 4 streams" in warning and "6 pairs of streams" in warning
    assert "BIEL's design" in warning and "--cross-stream distinct" in warning


def test_the_generator_refuses_a_suite_that_still_leaks(monkeypatch: pytest.MonkeyPatch) -> None:
    class Blind(generator.BestIndex):
        def clash(self, episode: object) -> None:
            return None

    monkeypatch.setattr(generator, "BestIndex", Blind)
    with pytest.raises(GenerationError, match=r"refusing a suite that leaks it$") as caught:
        streams(ONE_CUSTOMER)
    assert str(caught.value).startswith("stream 'stream-variable-category-regret-00")


def test_distinct_gives_each_stream_customers_of_its_own() -> None:
    plan = replace(ONE_CUSTOMER, settings=tuple(StreamSetting), n=2, episodes=3)
    tasks = streams(replace(plan, cross_stream=CrossStream.DISTINCT), n_personas=20)
    leaks = stream_leaks(tasks)
    assert leaks.hard == {} and leaks.warnings() == [] and leaks.shared == 0
    with pytest.raises(GenerationError, match="--cross-stream distinct needs more personas"):
        streams(replace(ONE_CUSTOMER, cross_stream=CrossStream.DISTINCT), n_personas=3)


def test_the_builtin_suite_is_drawn_isolated_and_shares_customers_as_documented() -> None:
    leaks = stream_leaks(load_suite("stream:builtin").tasks)
    assert (leaks.hard_episodes, leaks.hard) == (0, {})
    assert (leaks.personas, leaks.shared, leaks.most_streams) == (120, 120, 12)
    assert leaks.stream_pairs == 2045
