"""The lazy reader (payloads.py) checks what the full one checks and keeps only payloads
as bytes: it accepts and refuses exactly the lines pydantic does, and once its payloads
are decoded its records are pydantic's."""

from __future__ import annotations

from typing import Any

import msgspec
import orjson
import pytest
from support.trajectory_events import FULL, HEADER, pydantic_record, same_on_every_variant

from taurec.evaluator.recommendation.replay import same_json
from taurec.tasks.trajectory.payloads import (
    EVENTS,
    ModelCall,
    decode_events_lazily,
    is_null,
    model_call_ok,
    payload,
)
from taurec.tasks.trajectory.reader import parse_log_bytes

PAYLOADS = ("content", "output", "settings")


def _decoded(record: dict[str, Any]) -> dict[str, Any]:
    return {k: payload(v) if k in PAYLOADS else v for k, v in record.items()}


def _sorted(record: dict[str, Any]) -> bytes:
    return orjson.dumps(record, option=orjson.OPT_SORT_KEYS)


def _lazy(line: bytes) -> bytes | None:
    """The line as the lazy reader checks it (its payloads decoded), or None when refused."""
    try:
        (event,) = EVENTS.decode(b"[" + line + b"]")
    except msgspec.DecodeError:
        return None
    if type(event) is ModelCall and not model_call_ok(event):
        return None
    return _sorted(_decoded(msgspec.to_builtins(event, builtin_types=(msgspec.Raw,))))


def _full(line: bytes) -> bytes | None:
    got = pydantic_record(line)
    return None if got is None else _sorted(orjson.loads(got))


@pytest.mark.parametrize("event", FULL, ids=[e["type"] for e in FULL])
def test_the_lazy_reader_accepts_refuses_and_returns_what_pydantic_does(event):
    same_on_every_variant(event, _lazy, _full)


def _log(events: list[dict[str, Any]]) -> bytes:
    return b"\n".join(orjson.dumps(e) for e in [HEADER, *events]) + b"\n"


def test_a_clean_log_reads_lazily_as_it_reads_in_full_once_payloads_are_decoded():
    raw = _log(FULL)
    lazy, full = parse_log_bytes(raw, "a", lazy=True), parse_log_bytes(raw, "a")
    assert lazy.ok and full.ok
    assert isinstance(lazy.events[3]["content"], msgspec.Raw)
    assert [_decoded(e) for e in lazy.events] == full.events


def test_lines_out_of_order_or_a_second_end_are_read_the_slow_way_with_their_problem():
    swapped = [FULL[1], FULL[0], *FULL[2:]]
    early_end = [*FULL[:2], {**FULL[-1], "seq": 3}, *FULL[3:]]
    for events in (swapped, early_end):
        body = b"\n".join(orjson.dumps(e) for e in events)
        assert decode_events_lazily(body) is None
        raw = _log(events)
        lazy, full = parse_log_bytes(raw, "a", lazy=True), parse_log_bytes(raw, "a")
        assert [str(p) for p in lazy.problems] == [str(p) for p in full.problems] != []


def test_a_payload_that_is_not_json_or_not_utf8_is_a_problem_as_before():
    line = orjson.dumps(FULL[3])
    broken = line.replace(b'"tags":["a"]', b'"tags":["a"')
    not_utf8 = line.replace(b'"id":"x"', b'"id":"\xff"')
    for bad in (broken, not_utf8):
        lines = [orjson.dumps(e) for e in [HEADER, *FULL]]
        raw = b"\n".join([*lines[:4], bad, *lines[5:]]) + b"\n"
        lazy, full = parse_log_bytes(raw, "a", lazy=True), parse_log_bytes(raw, "a")
        assert not lazy.ok
        assert [str(p) for p in lazy.problems] == [str(p) for p in full.problems]


def test_payload_decodes_bytes_and_passes_values_through():
    assert payload(msgspec.Raw(b'{"a":[1,2.5]}')) == {"a": [1, 2.5]}
    assert payload({"a": 1}) == {"a": 1}
    assert payload(None) is None


def test_null_kept_as_bytes_is_null():
    assert is_null(None) and is_null(msgspec.Raw(b"null"))
    assert not is_null(msgspec.Raw(b"{}")) and not is_null({})


def test_a_logged_result_kept_as_bytes_equals_what_the_catalog_returns_as_values_do():
    assert same_json({"a": [1, 2]}, msgspec.Raw(b'{"a":[1,2]}'))
    assert same_json({"a": 1.0}, msgspec.Raw(b'{"a": 1}'))  # other bytes: decoded, compared
    assert same_json({"b": 1, "a": 2}, msgspec.Raw(b'{"a":2,"b":1}'))
    assert not same_json({"a": 1}, msgspec.Raw(b'{"a":2}'))
    assert not same_json({"a": 1}, {"a": 2})
