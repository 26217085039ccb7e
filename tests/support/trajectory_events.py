"""One event line of each type with every field, the odd values each field is tried
with, and pydantic's reading of a line: what the tests of the log readers share
(tests/tasks/trajectory)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from pydantic import ValidationError

from taurec.tasks.trajectory.records import EVENT_RECORD

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


def pydantic_record(line: bytes) -> bytes | None:
    """The line as pydantic checks it (dumped), or None when it refuses it."""
    try:
        return orjson.dumps(EVENT_RECORD.validate_python(orjson.loads(line), strict=True))
    except ValidationError:
        return None


def variants(event: dict[str, Any]) -> list[dict[str, Any]]:
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


def same_on_every_variant(
    event: dict[str, Any],
    read: Callable[[bytes], bytes | None],
    reference: Callable[[bytes], bytes | None],
) -> None:
    """`read` and `reference` accept, refuse and return the same for every variant of
    `event`; both outcomes are met (some variants refused, some read)."""
    tried = refused = 0
    for variant in variants(event):
        line = orjson.dumps(variant)
        expected = reference(line)
        assert read(line) == expected, line
        tried += 1
        refused += expected is None
    assert 0 < refused < tried
