"""A run's stream protocol as its log header records it: the fields a recorded protocol
lacks replay under their behaviour from before they existed."""

from __future__ import annotations

from taurec.tasks.stream.protocol import (
    LEGACY,
    PROTOCOL_KEY,
    CustomerKnows,
    FeedbackMode,
    StreamProtocol,
    protocol_of,
)


def test_a_new_run_records_every_field() -> None:
    assert set(StreamProtocol().record()) == {
        "feedback",
        "rules",
        "shuffle_order",
        "customer_knows",
        "labelled_control",
    }


def test_a_protocol_recorded_before_the_customer_knew_only_tastes_replays_item_aware() -> None:
    old = {PROTOCOL_KEY: {"feedback": "none", "rules": "biel", "shuffle_order": False}}
    protocol = protocol_of(old)
    assert protocol is not None
    assert protocol.customer_knows is CustomerKnows.ITEMS
    assert protocol.labelled_control and protocol.feedback is FeedbackMode.NONE


def test_a_recorded_protocol_round_trips() -> None:
    new = StreamProtocol(feedback=FeedbackMode.SHUFFLED)
    assert protocol_of({PROTOCOL_KEY: new.record()}) == new


def test_logs_recording_no_protocol_replay_under_the_old_rules() -> None:
    assert protocol_of({}) is None
    assert LEGACY.customer_knows is CustomerKnows.ITEMS and LEGACY.labelled_control
