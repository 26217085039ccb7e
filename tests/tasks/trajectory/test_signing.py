"""The chain checker's verdicts on what may follow a line's chain hash: only `"}`, and on
the last line the end record's HMAC. Logs are built here from plain records."""

from __future__ import annotations

import orjson

from taurec.tasks.trajectory.signing import (
    CHAIN_MARK,
    GENESIS,
    HMAC_MARK,
    LogKey,
    chain_next,
    verify_chain,
)

KEY = LogKey(b"a test key, 0123456789abcdef", "test")


def chained(records: list[dict], tails: dict[int, bytes] | None = None) -> bytes:
    """Records chained as the server writes them; `tails` replaces what follows the chain
    hash on the given line indexes (default `"}`, and the HMAC on the last line)."""
    out, previous = b"", GENESIS
    for i, rec in enumerate(records):
        body = orjson.dumps(rec)[:-1]
        previous = chain_next(previous, body)
        tail = b'"}'
        if i == len(records) - 1:
            tail = HMAC_MARK + KEY.mac(previous).encode() + b'"}'
        tail = (tails or {}).get(i, tail)
        out += body + CHAIN_MARK + previous.encode() + tail + b"\n"
    return out


RECORDS = [{"type": "header"}, {"type": "user_message", "seq": 1}, {"type": "end", "seq": 2}]


def test_a_signed_log_verifies_with_its_key():
    assert verify_chain(chained(RECORDS), KEY) is None


def test_a_signed_log_under_another_key_fails():
    other = LogKey(b"another key, 0123456789abcdef", "other")
    assert "HMAC does not match" in (verify_chain(chained(RECORDS), other) or "")


def test_an_hmac_on_a_middle_line_is_refused():
    raw = chained(RECORDS, {1: HMAC_MARK + b"0" * 64 + b'"}'})
    assert verify_chain(raw, None) == "line 2: an HMAC-signed end record before the last line"


def test_other_data_after_a_middle_lines_chain_is_refused():
    raw = chained(RECORDS, {1: b'","x":1}'})
    assert verify_chain(raw, None) == "line 2: unexpected data after the chain hash"


def test_other_data_after_the_last_lines_chain_is_refused():
    raw = chained(RECORDS, {2: b'","x":1}'})
    assert verify_chain(raw, None) == "line 3: unexpected data after the chain hash"


def test_a_malformed_hmac_is_refused():
    raw = chained(RECORDS, {2: HMAC_MARK + b"xyz" + b'"}'})
    assert verify_chain(raw, None) == "line 3: malformed HMAC"


def test_an_unsigned_end_fails_only_when_a_signature_is_required():
    raw = chained(RECORDS, {2: b'"}'})
    assert "carries no HMAC" in (verify_chain(raw, None) or "")
    assert verify_chain(raw, None, require_signature=False) is None


def test_a_chain_intact_prefix_passes_without_a_signature():
    raw = chained(RECORDS, {2: b'"}'})
    prefix = b"".join(raw.splitlines(keepends=True)[:2])
    assert verify_chain(prefix, None, require_signature=False) is None


def test_an_edited_middle_line_breaks_the_chain_there():
    raw = chained(RECORDS).replace(b'"seq":1', b'"seq":9')
    assert verify_chain(raw, None) == (
        "line 2: chain hash mismatch (the log was edited, reordered or spliced here)"
    )


def test_any_other_two_bytes_closing_a_middle_line_are_refused():
    for tail in (b'"\x00', b"\x00}", b'"]', b"}}"):
        raw = chained(RECORDS, {1: tail})
        assert verify_chain(raw, None) == "line 2: unexpected data after the chain hash", tail
