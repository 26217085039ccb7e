"""An episode log read as a conversation: messages in order, each tool call with its result."""

from __future__ import annotations

from taurec.evaluator.episodes.conversation import conversation, entry_seqs


def _ev(seq: int, type_: str, **kw) -> dict:
    return {"type": type_, "seq": seq, "t": float(seq), **kw}


def test_a_tool_result_is_folded_into_its_call():
    events = [
        _ev(1, "user_message", text="Hi"),
        _ev(
            2,
            "tool_call",
            call_id="a",
            name="search_catalog",
            arguments={"query": "x", "episode_id": "e"},
        ),
        _ev(3, "tool_result", call_id="a", is_error=False, content={"items": []}),
    ]
    user, tool = conversation(events)
    assert user == {"seq": 1, "role": "user", "text": "Hi"}
    assert tool["name"] == "search_catalog" and tool["arguments"] == {"query": "x"}
    # the log gives no latency: the time between the call (t 2 s) and its result (t 3 s)
    assert tool["result"] == {"seq": 3, "is_error": False, "content": {"items": []}, "ms": 1000.0}
    assert entry_seqs(tool) == [2, 3]


def test_a_tool_call_takes_its_logged_latency_when_there_is_one():
    events = [
        _ev(1, "tool_call", call_id="a", name="get_item", arguments={}),
        _ev(2, "tool_result", call_id="a", is_error=False, content={}, latency_ms=12.5),
        _ev(3, "tool_call", call_id="b", name="get_item", arguments={}),
    ]
    timed, unanswered = conversation(events)
    assert timed["result"]["ms"] == 12.5
    assert unanswered["result"] is None


def test_the_users_acts_are_kept_with_who_produced_them():
    acts = [{"intent": "disclose", "slot": "genres", "value": "Comedy", "items": []}]
    (entry,) = conversation([_ev(1, "user_message", text="A comedy", acts=acts, acts_by="rule")])
    assert entry["acts"] == acts and entry["acts_by"] == "rule"


def test_an_agent_message_not_sent_to_the_user_is_marked():
    (entry,) = conversation([_ev(1, "agent_message", text="thinking", delivered=False)])
    assert entry["delivered"] is False


def test_a_result_without_its_call_gets_an_entry_of_its_own():
    (entry,) = conversation([_ev(4, "tool_result", call_id="z", is_error=True, content="boom")])
    assert entry["role"] == "tool" and entry["result"]["seq"] == 4 and entry["result"]["is_error"]


def test_the_end_record_closes_the_conversation():
    *_, end = conversation(
        [_ev(1, "user_message", text="Hi"), _ev(2, "end", reason="abstained", item_id=None)]
    )
    assert end == {"seq": 2, "role": "end", "reason": "abstained", "item_id": None, "detail": None}


def test_the_end_record_carries_the_agents_traceback_when_it_has_one():
    trace = "Traceback (most recent call last):\n  ...\nValueError: boom\n"
    (end,) = conversation([_ev(3, "end", reason="agent_error", detail="x", traceback=trace)])
    assert end["traceback"] == trace
    (plain,) = conversation([_ev(3, "end", reason="agent_error", detail="x")])
    assert "traceback" not in plain
