"""`to_trace`: the trace τ-Rec's orchestrator would have recorded. It runs every call of
the committing model response, ends the trial after it, and records the response's text
after its calls (test_taurec_end_to_end.py checks this against τ-Rec itself)."""

from __future__ import annotations

import orjson
from support.episodes import Episode, make_task, small_catalog

from taurec.evaluator.recommendation.taurec_trace import TraceMessage, to_trace

CATALOG = small_catalog()
TASK = make_task()


def test_the_aside_sent_with_the_commit_and_its_message_are_one_agent_message_after_it():
    traj = (
        Episode()
        .say("Hi there.")
        .say("(a sponsored title)", delivered=False)
        .recommend("m4", "Saltwater Kings it is.")
        .user("Thanks!")  # the user's reaction to the commit: no part of τ-Rec's trace
        .end("recommended", "m4")
    )
    trace = to_trace(traj)
    assert [type(e).__name__ for e in trace.events] == [
        "TraceMessage",
        "TraceToolCall",
        "TraceMessage",
    ]
    assert trace.agent_messages == ["Hi there.", "(a sponsored title)\nSaltwater Kings it is."]


def test_an_aside_sent_with_an_earlier_response_is_dropped():
    traj = (
        Episode()
        .say("(sponsored)", delivered=False)
        .call("get_item", {}, item_id="m4")
        .recommend("m4")
        .end("recommended", "m4")
    )
    assert to_trace(traj).agent_messages == []


def test_every_call_of_the_committing_response_is_in_the_trace_and_the_last_stop_counts():
    traj = (
        Episode()
        .call("get_item", {}, batch="b1", item_id="m4")
        .say("(my pick)", delivered=False)
        .recommend("m4", batch="b2")
        .user("Thanks!")
        .recommend("m5", batch="b2", refused=True)
        .recommend(None, batch="b2", refused=True)
        .call("get_item", {}, batch="b3", item_id="m2")  # a later response: not recorded
        .end("recommended", "m4")
    )
    trace = to_trace(traj)
    assert [c.name for c in trace.tool_calls] == ["get_metadata", *["recommend"] * 3]
    assert trace.recommendations == ["m4", "m5"] and trace.stop_reason == "abstained"
    assert isinstance(trace.events[-1], TraceMessage) and trace.agent_messages == ["(my pick)"]


def test_a_refused_read_only_call_after_the_commit_is_replayed_as_tau_rec_would_run_it():
    traj = (
        Episode()
        .recommend("m1", batch="b1")
        .call("get_user_history", "the episode has ended", batch="b1", refused=True)
        .end("recommended", "m1")
    )
    (_, lookup) = to_trace(traj, TASK, CATALOG).tool_calls
    assert [w["id"] for w in orjson.loads(lookup.result)["watched"]] == ["m1"]
    (_, unreplayed) = to_trace(traj).tool_calls
    assert "error" in orjson.loads(unreplayed.result)


def test_a_log_without_batches_ends_at_the_first_recommend_call():
    traj = Episode().recommend("no-such-id", is_error=True).recommend("m4").end("recommended", "m4")
    trace = to_trace(traj)
    assert trace.recommendations == ["no-such-id"] and len(trace.tool_calls) == 1
