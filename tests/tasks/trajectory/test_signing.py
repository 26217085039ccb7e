"""The chain checker's verdicts on what may follow a line's chain hash: only `"}`, and on
the last line the end record's HMAC. Logs are built here from plain records."""

from __future__ import annotations

import hashlib

import orjson
import pytest

from taurec.tasks.trajectory.signing import (
    CHAIN_MARK,
    GENESIS,
    HMAC_MARK,
    PREFIX_CHAIN_VERSION,
    PREFIX_DOMAIN,
    LogKey,
    chain_next,
    chained_lines,
    verify_chain,
)

KEY = LogKey(b"a test key, 0123456789abcdef", "test")


def chained(records: list[dict], tails: dict[int, bytes] | None = None) -> bytes:
    """Records chained as the server writes them, by the scheme of the header's format
    version (v2: each chain hashes the file before it; v1: the previous chain and the
    line); `tails` replaces what follows the chain hash on the given line indexes
    (default `"}`, and the HMAC on the last line)."""
    prefix = records[0].get("format_version") == PREFIX_CHAIN_VERSION
    out, previous = b"", GENESIS
    for i, rec in enumerate(records):
        body = orjson.dumps(rec)[:-1]
        if prefix:
            previous = hashlib.sha256(PREFIX_DOMAIN + out + body).hexdigest()
        else:
            previous = chain_next(previous, body)
        tail = b'"}'
        if i == len(records) - 1:
            tail = HMAC_MARK + KEY.mac(previous).encode() + b'"}'
        tail = (tails or {}).get(i, tail)
        out += body + CHAIN_MARK + previous.encode() + tail + b"\n"
    return out


V1 = [{"type": "header"}, {"type": "user_message", "seq": 1}, {"type": "end", "seq": 2}]
V2 = [{"type": "header", "format_version": 2}, *V1[1:]]
#: Both chain schemes give the same verdicts, but where noted below.
BOTH = pytest.mark.parametrize("records", [V1, V2], ids=["v1", "v2"])


def test_the_writers_helper_and_this_one_chain_alike():
    assert chained_lines(V2, KEY) == chained(V2)
    assert chained_lines(V1, KEY) == chained(V1)


@BOTH
def test_a_signed_log_verifies_with_its_key(records):
    assert verify_chain(chained(records), KEY) is None


@BOTH
def test_a_signed_log_under_another_key_fails(records):
    other = LogKey(b"another key, 0123456789abcdef", "other")
    assert "HMAC does not match" in (verify_chain(chained(records), other) or "")


def test_an_hmac_on_a_middle_line_is_refused(records=V1):
    # v1 only: in v2 the last line's chain covers these bytes (see below)
    raw = chained(records, {1: HMAC_MARK + b"0" * 64 + b'"}'})
    assert verify_chain(raw, None) == "line 2: an HMAC-signed end record before the last line"


def test_other_data_after_a_middle_lines_chain_is_refused(records=V1):
    # v1 only: in v2 the last line's chain covers these bytes (see below)
    raw = chained(records, {1: b'","x":1}'})
    assert verify_chain(raw, None) == "line 2: unexpected data after the chain hash"


@BOTH
def test_other_data_after_the_last_lines_chain_is_refused(records):
    raw = chained(records, {2: b'","x":1}'})
    assert verify_chain(raw, None) == "line 3: unexpected data after the chain hash"


@BOTH
def test_a_malformed_hmac_is_refused(records):
    raw = chained(records, {2: HMAC_MARK + b"xyz" + b'"}'})
    assert verify_chain(raw, None) == "line 3: malformed HMAC"


@BOTH
def test_an_unsigned_end_fails_only_when_a_signature_is_required(records):
    raw = chained(records, {2: b'"}'})
    assert "carries no HMAC" in (verify_chain(raw, None) or "")
    assert verify_chain(raw, None, require_signature=False) is None


@BOTH
def test_a_chain_intact_prefix_passes_without_a_signature(records):
    raw = chained(records, {2: b'"}'})
    prefix = b"".join(raw.splitlines(keepends=True)[:2])
    assert verify_chain(prefix, None, require_signature=False) is None


@BOTH
def test_an_edited_middle_line_breaks_the_chain_there(records):
    raw = chained(records).replace(b'"seq":1', b'"seq":9')
    assert verify_chain(raw, None) == (
        "line 2: chain hash mismatch (the log was edited, reordered or spliced here)"
    )


def test_any_other_two_bytes_closing_a_middle_line_are_refused(records=V1):
    # v1 only: in v2 the last line's chain covers these bytes (see below)
    for tail in (b'"\x00', b"\x00}", b'"]', b"}}"):
        raw = chained(records, {1: tail})
        assert verify_chain(raw, None) == "line 2: unexpected data after the chain hash", tail


def test_v2_the_last_chain_covers_what_follows_a_middle_lines_chain():
    """Bytes after a middle line's chain are hashed by the chains after it: written so
    they verify (only a writer could), changed afterwards the walk names the line."""
    assert verify_chain(chained(V2, {1: b'","x":1}'}), KEY) is None
    raw = chained(V2).replace(b'"}\n{"type":"end"', b'","x":1}\n{"type":"end"')
    assert verify_chain(raw, None) == "line 2: unexpected data after the chain hash"


def test_a_v2_log_read_as_v1_fails():
    header = b'"format_version":2'
    raw = chained(V2)
    assert verify_chain(raw, None, version=1) == verify_chain(
        raw.replace(header, b'"format_version":1'), None
    )
    assert (verify_chain(raw, None, version=1) or "").startswith("line 1: chain hash mismatch")
