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
from pydantic.fields import FieldInfo
from support.trajectory_events import FULL, HEADER, pydantic_record, same_on_every_variant
from typing_extensions import is_typeddict

from taurec.tasks.trajectory import records
from taurec.tasks.trajectory.reader import parse_log_bytes
from taurec.tasks.trajectory.records import decode_events


def _msgspec(line: bytes) -> bytes | None:
    got = decode_events(line)
    return None if got is None else orjson.dumps(got[0])  # dumped: True is not 1 here


@pytest.mark.parametrize("event", FULL, ids=[e["type"] for e in FULL])
def test_msgspec_and_pydantic_accept_refuse_and_return_the_same(event):
    same_on_every_variant(event, _msgspec, pydantic_record)


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
