"""The two checkers of a log's events agree: msgspec's (`decode_events`, for lines in the
server's order) and pydantic's (every other line, and the slow path that names problems)
accept, refuse and return exactly the same records."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import msgspec
import orjson
import pytest
from pydantic import ValidationError
from pydantic.fields import FieldInfo
from typing_extensions import is_typeddict

from taurec.tasks.trajectory import records
from taurec.tasks.trajectory.reader import parse_log_bytes
from taurec.tasks.trajectory.records import EVENT_RECORD, decode_events

H64 = "ab" * 32
ACT = {"intent": "accept", "slot": "genres", "value": "contains Comedy", "items": ["x"]}
USAGE = {"prompt_tokens": 10, "completion_tokens": 3, "cost_usd": 0.25}
HEADER: dict[str, Any] = {
    "type": "header",
    "format": "taurec-trajectory",
    "run_id": "r",
    "episode_id": "e",
    "agent": {"label": "a"},
    "task_id": "t",
    "task_sha256": H64,
    "suite": {"id": "s"},
    "catalog_sha256": H64,
    "trial": 0,
    "seed": 1,
    "simulator": {"kind": "rule"},
    "server_version": "1",
    "started_at": "2026-01-01T00:00:00Z",
}
#: One event of each type, every field present.
FULL: list[dict[str, Any]] = [
    {
        "type": "user_message",
        "seq": 1,
        "t": 0.5,
        "latency_ms": 2.0,
        "chain": H64,
        "text": "Something funny.",
        "left": False,
        "acts": [ACT],
        "acts_by": "rule",
    },
    {
        "type": "agent_message",
        "seq": 2,
        "t": 1.0,
        "latency_ms": None,
        "chain": None,
        "text": "How long?",
        "delivered": True,
        "acts": [{"intent": "elicit", "slot": "runtime"}],
        "acts_by": "nlu",
    },
    {
        "type": "tool_call",
        "seq": 3,
        "t": 1.5,
        "call_id": "c1",
        "name": "get_item",
        "arguments": {"item_id": "x", "n": [1, 2.5, None]},
        "batch": "b1",
    },
    {
        "type": "tool_result",
        "seq": 4,
        "t": 2,
        "call_id": "c1",
        "is_error": False,
        "refused": False,
        "content": {"id": "x", "tags": ["a"], "score": 0.1, "n": 2**53},
    },
    {
        "type": "model_call",
        "seq": 5,
        "t": 2.5,
        "caller": "user",
        "model": "gpt-x",
        "purpose": "reply",
        "settings": {"temperature": 0},
        "input": H64,
        "input_messages": 3,
        "tools": H64,
        "output": {"content": "hi"},
        "usage": USAGE,
        "cache_hit": False,
        "error": None,
        "detail": None,
    },
    {
        "type": "end",
        "seq": 6,
        "t": 3.0,
        "reason": "recommended",
        "item_id": "x",
        "detail": None,
        "traceback": None,
        "usage": USAGE,
        "simulator": {"calls": 2},
        "key_id": "k1",
        "hmac": H64,
    },
]
#: Values each field is given in turn: wrong types, edges of each constraint, near-misses.
ODD: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    0.0,
    -0.5,
    1.5,
    2**53 - 1,
    2**53,
    2**63 - 1,
    -(2**63),
    1e308,
    "",
    "x",
    "0",
    H64,
    H64 + "\n",
    H64.upper(),
    H64[:-1],
    "recommended",
    "rule",
    "user",
    [],
    ["x"],
    [ACT],
    [{"intent": ""}],
    {},
    {"a": 1},
    USAGE,
]


def _pydantic(line: bytes) -> bytes | None:
    try:
        return orjson.dumps(EVENT_RECORD.validate_python(orjson.loads(line), strict=True))
    except ValidationError:
        return None


def _msgspec(line: bytes) -> bytes | None:
    got = decode_events(line)
    return None if got is None else orjson.dumps(got[0])  # dumped: True is not 1 here


def _variants(event: dict[str, Any]) -> list[dict[str, Any]]:
    """The event with each field (and each field of its acts and usage) given each odd
    value, and removed; and with a field no event has."""
    out = [event, {**event, "unknown": 1}]
    for key in event:
        out.append({k: v for k, v in event.items() if k != key})
        out.extend({**event, key: value} for value in ODD)
    for key, inner in (("acts", ACT), ("usage", USAGE)):
        if key not in event:
            continue
        for field in inner:
            wrap = (lambda d: [d]) if key == "acts" else (lambda d: d)
            out.append({**event, key: wrap({k: v for k, v in inner.items() if k != field})})
            out.extend({**event, key: wrap({**inner, field: value})} for value in ODD)
    return out


@pytest.mark.parametrize("event", FULL, ids=[e["type"] for e in FULL])
def test_msgspec_and_pydantic_accept_refuse_and_return_the_same(event):
    tried = refused = 0
    for variant in _variants(event):
        line = orjson.dumps(variant)
        assert _msgspec(line) == _pydantic(line), line
        tried += 1
        refused += _pydantic(line) is None
    assert 0 < refused < tried  # both were met: some lines refused, some read by msgspec


def test_a_clean_log_in_the_servers_order_is_read_by_msgspec():
    body = b"\n".join(orjson.dumps(e) for e in FULL)
    got = decode_events(body)
    assert got is not None and [e["type"] for e in got] == [e["type"] for e in FULL]


def test_lines_in_another_order_or_spacing_read_the_same_the_slower_way():
    def log(lines: list[bytes]) -> bytes:
        return b"\n".join([orjson.dumps(HEADER), *lines]) + b"\n"

    ours = log([orjson.dumps(e) for e in FULL])
    reordered = log([orjson.dumps(dict(reversed(e.items()))) for e in FULL])
    spaced = log([orjson.dumps(e).replace(b'":', b'": ') for e in FULL])
    assert decode_events(reordered.split(b"\n", 1)[1][:-1]) is None
    assert decode_events(spaced.split(b"\n", 1)[1][:-1]) is None
    first = parse_log_bytes(ours, "a")
    assert first.ok
    for other in (reordered, spaced):
        assert parse_log_bytes(other, "b").events == first.events


def test_a_refused_line_still_gets_its_problem_named():
    bad = {**FULL[0], "left": "yes"}
    body = b"\n".join(orjson.dumps(e) for e in [bad, *FULL[1:]])
    assert decode_events(body) is None
    log = parse_log_bytes(orjson.dumps(HEADER) + b"\n" + body + b"\n", "ep.jsonl")
    first = log.problems[0]  # (later lines then say their seq is out of order)
    assert first.line == 2 and "'left'" in first.message


def _constraints(hint: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(pydantic's, msgspec's) constraints of every Annotated type inside `hint`."""
    out = []
    if typing.get_origin(hint) is typing.Annotated:
        base, *extras = typing.get_args(hint)
        pyd: dict[str, Any] = {}
        spec: dict[str, Any] = {}
        for extra in extras:
            if isinstance(extra, FieldInfo):
                for m in extra.metadata:
                    given = dataclasses.asdict(m) if dataclasses.is_dataclass(m) else vars(m)
                    pyd.update({k: v for k, v in given.items() if k != "allow_inf_nan"})
            elif isinstance(extra, msgspec.Meta):
                names = ("ge", "le", "gt", "lt", "min_length", "max_length", "pattern")
                spec.update({n: getattr(extra, n) for n in names if getattr(extra, n) is not None})
        out.append((pyd, spec))
        hint = base
    for arg in typing.get_args(hint):
        out.extend(_constraints(arg))
    return out


def test_every_pydantic_constraint_has_its_msgspec_twin():
    typed = [
        getattr(records, name)
        for name in dir(records)
        if name.endswith("Record") and is_typeddict(getattr(records, name))
    ]
    assert len(typed) >= 8
    pairs = [
        pair
        for record in typed
        for hint in typing.get_type_hints(record, include_extras=True).values()
        for pair in _constraints(hint)
    ]
    assert pairs
    for pyd, spec in pairs:
        if "pattern" in pyd:  # Python's `$` matches before a final newline; `\Z` does not
            assert pyd.pop("pattern").removesuffix("$") == spec.pop("pattern").removesuffix("\\Z")
        assert pyd == spec
