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


def _commit(item: str, message: str | None = None, call: str = "call_9") -> dict[str, Any]:
    arguments = {"item_id": item} | ({"message": message} if message is not None else {})
    return {"type": "tool_call", "call_id": call, "name": "recommend", "arguments": arguments}


def _result(call: str = "call_9", is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "call_id": call, "is_error": is_error}


def _shape(events: list[dict[str, Any]]) -> list[tuple[str, tuple[str, ...], str | None]]:
    found = dialogue_of(events)
    assert found is not None
    return [(u.speaker, u.intents, u.reaction_to) for u in found[0]]


def test_an_empty_commit_of_the_pitched_title_is_no_utterance_and_the_reaction_is_marked():
    events = [
        _agent(_act("recommend", items=("x",))),
        _user(_act("accept", items=("x",))),
        _commit("x"),
        _user(_act("accept", items=("x",))),
        _result(),
    ]
    assert _shape(events) == [
        ("agent", ("recommend",), None),
        ("user", ("accept",), None),
        ("user", ("accept",), "x"),
    ]


def test_a_commit_message_about_the_pitched_title_is_an_utterance_opening_no_round():
    events = [
        _agent(_act("recommend", items=("x",))),
        _user(_act("accept", items=("x",))),
        _commit("x", "Enjoy x!"),
        _user(_act("accept", items=("x",))),
        _result(),
    ]
    assert [s[:2] for s in _shape(events)][2] == ("agent", ("other",))


def test_a_commit_of_a_title_not_pitched_in_the_round_is_the_agents_recommendation():
    events = [
        _agent(_act("recommend", items=("x",))),
        _user(_act("reject", items=("x",))),
        _commit("y"),
        _user(_act("accept", items=("y",))),
        _result(),
    ]
    assert _shape(events)[2:] == [("agent", ("recommend",), None), ("user", ("accept",), None)]


def test_a_commit_the_server_refused_is_not_in_the_dialogue():
    events = [_user(_act("start")), _commit("nope"), _result(is_error=True)]
    assert _shape(events) == [("user", ("start",), None)]
