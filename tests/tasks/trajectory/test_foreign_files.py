"""A .jsonl file that is not a taurec log at all is told apart from a damaged log of ours:
only a file with no line of ours, whole or cut short, is foreign."""

from __future__ import annotations

import orjson
import pytest

from taurec.tasks.trajectory.reader import NOT_A_LOG, parse_log_bytes

HEADER = b'{"type":"header","format":"taurec-trajectory","format_version":1}'
EVENT = orjson.dumps({"type": "user_message", "seq": 1, "t": 0.0, "text": "Hi"})

FOREIGN = {
    "notes": b'{"note": "check t003 tomorrow"}\n{"note": "and t004"}\n',
    "plain text": b"this is not a log\n",
    "a JSON list": b"[1, 2, 3]\n",
    "another program's types": b'{"type": "metric", "value": 3}\n',
    "a lone brace": b"{\n",
}
OURS_DAMAGED = {
    "empty": b"",
    "a header cut short": HEADER[:20],
    "a header with a bad field": HEADER[:-1] + b',"trial":"x"}\n',
    "the header mark in a broken line": b'{"x" "taurec-trajectory"\n',
    "a lost header, events left": b"garbage\n" + EVENT + b"\n",
    "a spaced header of another writer": b'{"type": "header"}\n',
}


@pytest.mark.parametrize("raw", FOREIGN.values(), ids=FOREIGN.keys())
def test_a_file_with_no_line_of_ours_is_foreign_with_one_problem(raw: bytes) -> None:
    log = parse_log_bytes(raw, "x.jsonl")
    assert log.foreign and log.header is None
    assert [str(p) for p in log.problems] == [f"x.jsonl: {NOT_A_LOG}"]


@pytest.mark.parametrize("raw", OURS_DAMAGED.values(), ids=OURS_DAMAGED.keys())
def test_a_damaged_log_of_ours_is_never_foreign(raw: bytes) -> None:
    log = parse_log_bytes(raw, "x.jsonl")
    assert not log.foreign and log.problems
    assert NOT_A_LOG not in [p.message for p in log.problems]
