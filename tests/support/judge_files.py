"""Judge files an attacker or a damaged disk may leave in `LOGDIR/judge/`: each one a
report or viewer must leave out with one warning line (issue 25, item 10)."""

from __future__ import annotations

from typing import Any

import orjson

from taurec.evaluator.judge.signature import sign
from taurec.tasks.trajectory.signing import LogKey, load_log_key

EPISODE = "agentA-ta-0"
OTHER_KEY = LogKey(b"another server's key 0123456789", "other")


def judge_doc(score: dict[str, Any] | None = None, **changes: Any) -> dict[str, Any]:
    """A judge file's document giving EPISODE a fluency of 5.0 (`score` replaces its
    fields, `changes` the document's members)."""
    fluency = {"mean": 5.0, "spread": 0.0, "samples": [5.0], "failures": 0, "model": "m"}
    doc = {
        "format": "taurec-judge",
        "format_version": 2,
        "model": "m",
        "settings": {},
        "episodes": {EPISODE: {"fluency": {**fluency, **(score or {})}}},
        "calls": {},
    }
    return {**doc, **changes}


def signed(doc: dict[str, Any], key: LogKey | None = None) -> bytes:
    """`doc` signed as `evaluator judge` signs it (by default with the test session's key)."""
    return orjson.dumps(sign(doc, key or load_log_key(create=True)))


def _tampered() -> bytes:
    doc = orjson.loads(signed(judge_doc({"mean": 2.0, "samples": [2.0]})))
    doc["episodes"][EPISODE]["fluency"]["mean"] = 5.0
    return orjson.dumps(doc)


def bad_judge_files() -> dict[str, bytes]:
    """File name -> bytes: forged, altered and malformed judge files."""
    return {
        "forged-unsigned": orjson.dumps(judge_doc()),
        "tampered": _tampered(),
        "other-key": signed(judge_doc(), OTHER_KEY),
        "not-json": b"{not json",
        "truncated": signed(judge_doc())[:-40],
        "a-list": orjson.dumps([judge_doc()]),
        "wrong-type": signed(judge_doc({"mean": "high"})),
        "missing-field": signed(judge_doc(episodes={EPISODE: {"fluency": {"mean": 5.0}}})),
        "no-episodes": signed({k: v for k, v in judge_doc().items() if k != "episodes"}),
        "huge-number": signed(judge_doc({"mean": 1e308})),
        "huge-integer": signed(judge_doc({"failures": 18446744073709551615})),
        "nan": signed(judge_doc()).replace(b'"mean":5.0', b'"mean":NaN'),
        "out-of-range": signed(judge_doc({"mean": 7.0})),
        "sample-out-of-range": signed(judge_doc({"samples": [5.0, -1e9]})),
        "episodes-a-list": signed(judge_doc(episodes=[EPISODE])),
        "negative-failures": signed(judge_doc({"failures": -1})),
        "bool-score": signed(judge_doc({"mean": True})),
        "bad-call": signed(judge_doc(calls={"k": {"score": "five"}})),
    }
