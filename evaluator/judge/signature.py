"""Judge files signed the way episode logs are: an HMAC-SHA256 under the log key
(tasks/trajectory/signing.py), with a domain of its own so that no log's signature passes
for a judge file's, or the other way round.

What is signed is the SHA-256 of the file's document without its `signature` member,
serialized with sorted keys and no spaces (orjson): a document read back from the file
serializes to the same bytes, so the reader recomputes it from what it parsed. The
`signature` member holds the HMAC and the key's id (a hash of it, never the key).

Whoever can write the log folder can write a judge file, but without the key cannot sign
one: the report and the viewer leave an unsigned or altered file out, with a warning.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Final

import orjson

from taurec.tasks.trajectory.signing import LogKey

SIGNATURE: Final = "signature"
DOMAIN: Final = b"taurec-judge-v1\x00"
_HEX64 = re.compile(r"[0-9a-f]{64}")


def body_digest(doc: dict[str, Any]) -> str:
    """The hex SHA-256 of `doc` without its signature (what the HMAC covers)."""
    body = {k: v for k, v in doc.items() if k != SIGNATURE}
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


def sign(doc: dict[str, Any], key: LogKey) -> dict[str, Any]:
    """`doc` with its `signature` member (replacing any it had)."""
    mac = key.mac(body_digest(doc), DOMAIN)
    return {**doc, SIGNATURE: {"hmac": mac, "key_id": key.key_id}}


def signature_problem(doc: dict[str, Any], key: LogKey) -> str | None:
    """None when `doc` carries a valid signature under `key`; else what is wrong, in words."""
    sig = doc.get(SIGNATURE)
    if sig is None:
        return (
            "unsigned (written by hand, by another tool or before judge files were "
            "signed; run `evaluator judge` again to sign it)"
        )
    if not isinstance(sig, dict) or not isinstance(sig.get("hmac"), str):
        return "malformed signature"
    if not _HEX64.fullmatch(sig["hmac"]):
        return "malformed signature"
    try:
        digest = body_digest(doc)
    except (orjson.JSONEncodeError, TypeError):  # a value no signed file could hold
        return "signature does not match (the file was edited)"
    if key.verify(digest, sig["hmac"], DOMAIN):
        return None
    if sig.get("key_id") != key.key_id:
        return (
            f"signed with another key (key id {str(sig.get('key_id'))[:16]!r}, "
            f"this key's is {key.key_id!r})"
        )
    return "signature does not match (the file was edited or forged)"
