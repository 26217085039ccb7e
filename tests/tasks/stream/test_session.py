"""The rules of a stream: questions within a budget, one recommendation per episode."""

from __future__ import annotations

import re

import pytest
from support.streams import make_stream

from taurec.tasks.stream.protocol import (
    FeedbackMode,
    StreamProtocol,
    StreamRules,
    episode_order,
    scrambled,
)
from taurec.tasks.stream.session import StreamRuleError, StreamSession, hash_seed
from taurec.tasks.stream.task import FeedbackKind

TAUREC_RULES = StreamProtocol(rules=StreamRules.TAUREC)


def session(protocol: StreamProtocol | None = None, **kw: object) -> StreamSession:
    return StreamSession(make_stream(**kw), seed=1, protocol=protocol or StreamProtocol())  # type: ignore[arg-type]


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


def test_under_taurecs_rules_an_id_outside_the_choice_set_is_a_clear_error() -> None:
    s = session(TAUREC_RULES)
    with pytest.raises(StreamRuleError, match="item 'syn_999999' is not in episode 1's choice set"):
        s.recommend("syn_999999")
    assert s.questions == 0 and not s.chosen


def test_under_biels_rules_an_id_outside_the_choice_set_counts_as_a_question() -> None:
    s = session()
    result = s.recommend("syn_999999")
    assert result.counted_as_question and result.questions_left == 9
    assert result.feedback is None and not s.chosen and s.questions == 1
    assert "counts as a question (9 left)" in (result.note or "")
    dumped = result.model_dump(mode="json")
    assert dumped["counted_as_question"] is True
    # a recommendation that is taken leaves these fields out of the result
    taken = s.recommend(s.task.episodes[0].item_ids[3]).model_dump(mode="json")
    assert {"counted_as_question", "questions_left", "note"}.isdisjoint(taken)
    assert s.asked == [1]


def test_under_biels_rules_with_no_question_left_an_unknown_id_gives_the_first_item() -> None:
    s = StreamSession(make_stream().model_copy(update={"question_budget": 0}), seed=1)
    result = s.recommend("nope")
    first = s.task.episodes[0].item_ids[0]
    assert result.item_id == first and s.chosen == [first]
    assert "first item" in (result.note or "") and result.feedback is not None


def test_a_recommendation_returns_biels_feedback() -> None:
    s = session()
    spec = s.task.episodes[0]
    result = s.recommend(spec.ranked()[-1])
    assert result.feedback is not None
    assert result.feedback.startswith("Recommendation feedback: Chosen score: ")
    assert not result.stream_complete


def test_withheld_feedback_is_none_and_the_view_keeps_the_tasks_kind() -> None:
    s = session(StreamProtocol(feedback=FeedbackMode.NONE), feedback=FeedbackKind.STARS)
    assert s.view().feedback_kind == "stars"  # a control does not announce itself
    assert s.recommend(s.task.episodes[0].item_ids[0]).feedback is None


def test_a_labelled_control_of_an_old_log_replays_with_the_view_saying_none() -> None:
    old = StreamProtocol(feedback=FeedbackMode.NONE, labelled_control=True)
    assert session(old, feedback=FeedbackKind.STARS).view().feedback_kind == "none"


def test_only_scrambled_feedback_is_a_blind_control() -> None:
    assert [m.value for m in FeedbackMode if m.blind] == ["shuffled"]


def test_shuffled_feedback_describes_the_item_the_sets_permutation_maps_to() -> None:
    s = session(StreamProtocol(feedback=FeedbackMode.SHUFFLED))
    spec = s.task.episodes[0]
    assert s.view().feedback_kind == "regret"  # a placebo: it looks like the real thing
    chosen = spec.ranked()[0]
    described = scrambled(spec.item_ids, hash_seed(1, 0))[chosen]
    text = s.recommend(chosen).feedback or ""
    assert f"Chosen score: {spec.utilities[described]:.1f}," in text


def test_the_scrambling_permutes_the_set() -> None:
    ids = [f"i{n}" for n in range(30)]
    mapping = scrambled(ids, 5)
    assert sorted(mapping.values()) == sorted(ids)
    assert mapping != dict(zip(ids, ids, strict=True))
    assert mapping == scrambled(ids, 5)


def test_shuffled_order_plays_every_episode_once_in_an_order_set_by_the_seed() -> None:
    task = make_stream(episodes=6)
    s = StreamSession(task, seed=3, protocol=StreamProtocol(shuffle_order=True))
    order = episode_order(6, 3, True)
    assert sorted(order) == list(range(6)) and order != list(range(6))
    assert [i.id for i in s.view().items] == task.episodes[order[0]].item_ids
    assert episode_order(6, 3, False) == list(range(6))


def test_an_interim_pick_is_recorded_and_answers_nothing() -> None:
    s = session()
    s.ask("Hi?")
    item = s.task.episodes[0].item_ids[2]
    result = s.interim(item, {"favorite": 0.4, "predicted_regret": 12})
    assert (result.episode, result.item_id, result.questions_asked) == (1, item, 1)
    assert "feedback" not in result.model_dump()
    s.recommend(item, {"favorite": 0.5})
    first = s.picks[0]
    assert [(p.final, p.questions) for p in first] == [(False, 1), (True, 1)]
    assert first[0].confidence is not None and first[0].confidence.predicted_regret == 12
    with pytest.raises(StreamRuleError, match="already has its recommendation"):
        s.interim(item)


def test_an_interim_pick_outside_the_set_is_refused_under_either_rules() -> None:
    with pytest.raises(StreamRuleError, match="not in episode 1's choice set"):
        session().interim("nope")


def test_a_confidence_out_of_range_is_refused() -> None:
    s = session()
    with pytest.raises(ValueError, match="less than or equal to 1"):
        s.recommend(s.task.episodes[0].item_ids[0], {"favorite": 1.5})


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


def _reasons(protocol: StreamProtocol) -> list[str]:
    """The reason sentence (after the opener) of the persona feedback on each item of
    episode 1's set, "" where there is none."""
    from taurec.tasks.stream.feedback import OPENERS, PERFECT

    openers = sorted({t for texts in OPENERS.values() for t in texts} | {PERFECT}, key=len)
    out = []
    for item in make_stream(feedback=FeedbackKind.PERSONA).episodes[0].item_ids:
        text = session(protocol, feedback=FeedbackKind.PERSONA).recommend(item).feedback or ""
        opener = next(o for o in reversed(openers) if text.startswith(o))
        out.append(text.removeprefix(opener).strip())
    return out


def test_scrambled_persona_feedback_carries_a_reason_as_the_real_feedback_does() -> None:
    real = _reasons(StreamProtocol())
    scrambled_ = _reasons(StreamProtocol(feedback=FeedbackMode.SHUFFLED))
    assert sum(bool(r) for r in scrambled_) > 0
    assert abs(sum(bool(r) for r in scrambled_) - sum(bool(r) for r in real)) <= 2
    assert scrambled_ != real


def test_a_scrambled_reason_names_only_a_kind_the_recommended_item_is() -> None:
    from taurec.tasks.stream.task import StreamTask
    from taurec.tasks.suite import load_suite

    tasks = [t for t in load_suite("stream:builtin").tasks if isinstance(t, StreamTask)]
    task = next(t for t in tasks if t.feedback is FeedbackKind.PERSONA)
    protocol = StreamProtocol(feedback=FeedbackMode.SHUFFLED)
    named_kinds = 0
    for item_id in task.episodes[0].item_ids:
        text = StreamSession(task, seed=3, protocol=protocol).recommend(item_id).feedback or ""
        kinds = {c.lower() for c in task.item_index[item_id].categories}
        for pattern in (r"It is the kind of (.+) I enjoy\.", r"I'm not really into (.+)\."):
            if m := re.search(pattern, text):
                assert m.group(1) in kinds, (text, kinds)
                named_kinds += 1
    assert named_kinds > 0


def test_a_labelled_control_of_an_old_log_gives_scrambled_persona_feedback_no_reason() -> None:
    old = StreamProtocol(feedback=FeedbackMode.SHUFFLED, labelled_control=True)
    assert not any(_reasons(old))


def test_a_forced_pick_carries_no_confidence_stated_for_another_id() -> None:
    s = StreamSession(make_stream().model_copy(update={"question_budget": 0}), seed=1)
    s.recommend("nope", {"favorite": 0.9})
    assert s.picks[0][0].confidence is None
