"""The rules of a stream: questions within a budget, one recommendation per episode."""

from __future__ import annotations

import pytest
from support.streams import make_stream

from taurec.tasks.stream.session import StreamRuleError, StreamSession
from taurec.tasks.stream.task import FeedbackKind


def session(**kw: object) -> StreamSession:
    return StreamSession(make_stream(**kw), seed=1)  # type: ignore[arg-type]


def test_the_first_view_is_episode_one_with_its_choice_set() -> None:
    s = session()
    view = s.view()
    assert (view.episode, view.episodes) == (1, 3)
    assert [i.id for i in view.items] == s.task.episodes[0].item_ids
    assert view.questions_left == 10


def test_the_view_never_shows_utilities_or_the_persona() -> None:
    s = session()
    text = s.view().model_dump_json()
    assert "utilit" not in text
    assert s.task.personas[0].description not in text


def test_a_question_costs_one_of_the_budget() -> None:
    s = session()
    assert s.ask("Do you like comedy?").questions_left == 9


def test_at_the_budget_a_recommendation_is_forced() -> None:
    s = StreamSession(make_stream().model_copy(update={"question_budget": 1}), seed=1)
    s.ask("Anything?")
    with pytest.raises(
        StreamRuleError, match=r"question budget of episode 1 is spent .* recommend an item now"
    ):
        s.ask("Anything else?")


def test_a_recommendation_outside_the_choice_set_is_a_clear_error() -> None:
    s = session()
    outsider = s.task.episodes[1].item_ids[0]
    if outsider in s.task.episodes[0].utilities:
        outsider = "syn_999999"
    with pytest.raises(
        StreamRuleError, match=f"item '{outsider}' is not in episode 1's choice set"
    ):
        s.recommend(outsider)


def test_a_recommendation_returns_the_feedback() -> None:
    s = session()
    spec = s.task.episodes[0]
    result = s.recommend(spec.ranked()[-1])
    assert result.feedback is not None and result.feedback.startswith("Chosen score: ")
    assert not result.stream_complete


def test_each_episode_takes_exactly_one_recommendation() -> None:
    s = session()
    s.recommend(s.task.episodes[0].item_ids[0])
    with pytest.raises(StreamRuleError, match="already has its recommendation; call next_episode"):
        s.recommend(s.task.episodes[0].item_ids[1])


def test_next_episode_needs_a_recommendation_first() -> None:
    s = session()
    with pytest.raises(StreamRuleError, match="has no recommendation yet"):
        s.next_episode()


def test_next_episode_resets_the_question_budget() -> None:
    s = session()
    s.ask("Hi?")
    s.recommend(s.task.episodes[0].item_ids[0])
    assert s.next_episode().questions_left == 10


def test_the_last_recommendation_completes_the_stream() -> None:
    s = session(feedback=FeedbackKind.NONE)
    for n in range(3):
        result = s.recommend(s.task.episodes[n].item_ids[0])
        assert result.feedback is None
        if n < 2:
            s.next_episode()
    assert result.stream_complete and s.complete
    with pytest.raises(StreamRuleError, match="the stream is complete"):
        s.next_episode()


def test_replaying_accepted_calls_restores_the_state() -> None:
    s = session()
    first = s.task.episodes[0].item_ids[0]
    calls = [
        ("ask_question", {"question": "Hi?"}),
        ("recommend_item", {"item_id": first}),
        ("next_episode", {}),
    ]
    s.replay(calls)
    again = session()
    again.replay(calls)
    assert (again.index, again.questions, again.chosen) == (1, 0, [first])
