"""The dialogue read off a log: utterances of both sides and commits, and requests
the agent left unanswered."""

from __future__ import annotations

from typing import Any

from taurec.evaluator.recommendation.dialogue import dialogue_of


def _user(*acts: dict[str, Any]) -> dict[str, Any]:
    return {"type": "user_message", "acts": list(acts), "acts_by": "rule"}


def _agent(*acts: dict[str, Any], delivered: bool = True) -> dict[str, Any]:
    return {"type": "agent_message", "acts": list(acts), "delivered": delivered}


def _act(intent: str, slot: str | None = None, items: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"intent": intent, "slot": slot, "value": None, "items": list(items)}


def test_a_log_without_acts_has_no_dialogue():
    assert dialogue_of([{"type": "user_message", "text": "hi"}]) is None


def test_a_commit_is_the_agents_recommendation_and_asides_are_not_utterances():
    commit = {"type": "tool_call", "name": "recommend", "arguments": {"item_id": "x"}}
    found = dialogue_of([_user(_act("start")), _agent(delivered=False), commit])
    assert found is not None
    utterances, _, _ = found
    assert [(u.speaker, u.intents) for u in utterances] == [
        ("user", ("start",)),
        ("agent", ("recommend",)),
    ]


def test_a_request_the_agent_never_answers_is_counted_unanswered():
    events = [_user(_act("inquire", "director", ("x",))), _agent(_act("other"))]
    found = dialogue_of(events)
    assert found is not None and found[1:] == (1, 1)


def test_an_answer_of_that_slot_and_item_answers_it():
    events = [
        _user(_act("inquire", "director", ("x",))),
        _agent(_act("answer", "director", ("x",))),
        _user(_act("inquire", "director", ("x",))),  # asked again: still one request
    ]
    found = dialogue_of(events)
    assert found is not None and found[1:] == (1, 0)
