"""Tamper evidence for trajectory logs: a hash chain over the lines, an HMAC on the end.

Every line of a log ends with a `chain` member. In format v2 (what the server writes) it
is the SHA-256 (hex) of PREFIX_DOMAIN followed by every byte of the file before this
line's `,"chain":"`: the whole file so far, earlier lines' chains included. So the last
line's chain covers every line, and checking it costs one SHA-256 over the file; the
earlier lines' values let a log cut short (a crashed server's) be checked up to its last
whole line, and name the first line where an edited log differs. In format v1, each
line's chain is the SHA-256 of the previous line's chain (for the header, GENESIS: the
hex SHA-256 of `taurec-trajectory-v1`) followed by this line's bytes up to `,"chain":"`;
checking it takes one SHA-256 per line. Editing, dropping or reordering any line breaks
the chain of the last line in both. The chain alone needs no secret, so whoever edits a
log can recompute it; what they cannot recompute is the end record's `hmac`:
HMAC-SHA256, under the server's log key, of the end record's chain, which covers the
whole file. `key_id` in the end record names the key (a hash of it, not the key).

The key comes from the environment (`TAUREC_LOG_KEY`, the secret itself), or a key file
(`TAUREC_LOG_KEY_FILE`, default `$XDG_DATA_HOME/taurec/log.key`, i.e.
`~/.local/share/taurec/log.key`), which the server generates (32 random bytes, mode 0600)
when it is absent. The evaluator only ever reads it.

Both members are optional in format v1: other harnesses may write unsigned logs, which
score normally and fail only `evaluator score --verify`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Final

import orjson

from taurec.catalog.errors import DataError

KEY_ENV: Final = "TAUREC_LOG_KEY"
KEY_FILE_ENV: Final = "TAUREC_LOG_KEY_FILE"
MIN_KEY_CHARS: Final = 16

CHAIN_MARK: Final = b',"chain":"'
HMAC_MARK: Final = b'","hmac":"'
_HEX64 = re.compile(rb"[0-9a-f]{64}")
_MAC_DOMAIN: Final = b"taurec-trajectory-v1\x00"


GENESIS: Final = hashlib.sha256(b"taurec-trajectory-v1").hexdigest()
#: What a format v2 chain hashes before the file's bytes (no v1 chain value can pose as
#: a v2 one, nor the other way round).
PREFIX_DOMAIN: Final = b"taurec-trajectory-v2\x00"
#: The trajectory format version whose lines carry the prefix chain.
PREFIX_CHAIN_VERSION: Final = 2


def chain_next(previous: str, body: bytes) -> str:
    """The chain value of a line whose bytes before `,"chain":` are `body`."""
    return hashlib.sha256(previous.encode("ascii") + body).hexdigest()


class PrefixChain:
    """The writer's side of the v2 chain: the running SHA-256 of the file so far."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256(PREFIX_DOMAIN)

    def line(
        self, body: bytes, sign: LogKey | None = None, domain: bytes = _MAC_DOMAIN
    ) -> tuple[bytes, str, PrefixChain]:
        """The whole line for `body` (the record's JSON without its closing brace), its
        chain, and the chain state after it: adopt that only once the line is on disk."""
        after = PrefixChain.__new__(PrefixChain)
        after._hash = self._hash.copy()
        after._hash.update(body)
        chain = after._hash.hexdigest()
        line = _closed(body, chain, sign, domain)
        after._hash.update(line[len(body) :])
        return line, chain, after


class StepChain:
    """The writer's side of the v1 chain (and of run registers'): the last line's chain."""

    def __init__(self, previous: str = GENESIS) -> None:
        self.previous = previous

    def line(
        self, body: bytes, sign: LogKey | None = None, domain: bytes = _MAC_DOMAIN
    ) -> tuple[bytes, str, StepChain]:
        """As PrefixChain.line."""
        chain = chain_next(self.previous, body)
        return _closed(body, chain, sign, domain), chain, StepChain(chain)


def _closed(body: bytes, chain: str, sign: LogKey | None, domain: bytes) -> bytes:
    """`body` closed with its chain, and its HMAC when signed."""
    tail = CHAIN_MARK + chain.encode("ascii")
    if sign is not None:
        tail += HMAC_MARK + sign.mac(chain, domain).encode("ascii")
    return body + tail + b'"}\n'


def chain_for(format_version: int) -> PrefixChain | StepChain:
    """The chain a log of this trajectory format version is written with."""
    return PrefixChain() if format_version == PREFIX_CHAIN_VERSION else StepChain()


def chained_lines(records: Sequence[dict[str, Any]], key: LogKey | None = None) -> bytes:
    """`records` written as the server writes a log: chained by the scheme of the format
    version the first record (the header) names, the last one signed with `key` when
    given. Members `chain` and `hmac` already in a record are dropped first (for tools
    and tests that rewrite a log)."""
    version = records[0].get("format_version") if records else None
    chain = chain_for(version if type(version) is int else 1)
    out = []
    for i, record in enumerate(records):
        body = orjson.dumps({k: v for k, v in record.items() if k not in ("chain", "hmac")})
        line, _, chain = chain.line(body[:-1], key if i == len(records) - 1 else None)
        out.append(line)
    return b"".join(out)


@dataclass(frozen=True)
class LogKey:
    """The secret that signs end records. `source` says where it came from (for messages)."""

    secret: bytes
    source: str

    def __repr__(self) -> str:  # never print the secret
        return f"LogKey(key_id={self.key_id!r}, source={self.source!r})"

    @cached_property
    def key_id(self) -> str:
        return hashlib.sha256(b"taurec-log-key-id\x00" + self.secret).hexdigest()[:16]

    def mac(self, chain: str, domain: bytes = _MAC_DOMAIN) -> str:
        """`domain` keeps a signature of one kind of record from passing for another."""
        return hmac.digest(self.secret, domain + chain.encode("ascii"), "sha256").hex()

    def verify(self, chain: str, mac: str, domain: bytes = _MAC_DOMAIN) -> bool:
        return hmac.compare_digest(self.mac(chain, domain), mac)


def default_key_file() -> Path:
    configured = os.environ.get(KEY_FILE_ENV)
    if configured:
        return Path(configured).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "taurec" / "log.key"


def _secret_from_text(text: str, source: str) -> bytes:
    text = text.strip()
    if len(text) < MIN_KEY_CHARS:
        raise DataError(
            f"{source}: the log key is {len(text)} characters; expected at least {MIN_KEY_CHARS}"
        )
    return text.encode("utf-8")


def load_log_key(key_file: str | Path | None = None, *, create: bool = False) -> LogKey:
    """The log key: `key_file` if given, else $TAUREC_LOG_KEY, else the default key file.

    With `create`, a missing key file is generated (the server does this); without it a
    missing key is a DataError saying how to provide one (the evaluator's case).
    """
    if key_file is None:
        env = os.environ.get(KEY_ENV)
        if env is not None:
            return LogKey(_secret_from_text(env, f"${KEY_ENV}"), f"${KEY_ENV}")
    path = Path(key_file).expanduser() if key_file is not None else default_key_file()
    try:
        return LogKey(_secret_from_text(path.read_text("utf-8"), str(path)), str(path))
    except FileNotFoundError:
        if not create:
            raise DataError(
                f"no log key at {path}: give --key-file, or set ${KEY_ENV} or ${KEY_FILE_ENV} "
                "to the key the server signed with"
            ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read the log key: {exc}") from None
    return _create_key_file(path)


def _create_key_file(path: Path) -> LogKey:
    """Write a new key where none is. The key is written and synced in a private temporary
    file first, then linked into place: a concurrent reader never sees a half-written
    key, and when two servers race, the second link fails and both use the first key."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = secrets.token_hex(32) + "\n"
    temp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, text.encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(temp, path)
    except FileExistsError:
        return load_log_key(path)
    finally:
        temp.unlink()
    return LogKey(_secret_from_text(text, str(path)), str(path))


def is_chained(raw: bytes) -> bool:
    """Whether a log carries chain hashes at all (JSON text escapes quotes inside strings,
    so the mark occurs only as a real member)."""
    return CHAIN_MARK in raw


def last_chain(raw: bytes) -> str | None:
    """The chain hash of a log's last complete line (None when it has none)."""
    stop = len(raw)
    while stop and raw[stop - 1] == 10:  # trailing newlines
        stop -= 1
    start = raw.rfind(b"\n", 0, stop) + 1
    at = raw.rfind(CHAIN_MARK, start, stop)
    if at < 0:
        return None
    value = raw[at + len(CHAIN_MARK) : min(stop, at + len(CHAIN_MARK) + 64)]
    return value.decode("ascii") if _HEX64.fullmatch(value) else None


def log_format_version(raw: bytes) -> int:
    """The format_version a log's header line names (1 when it names none, or the line
    cannot be read: a damaged header then fails as a v1 chain would)."""
    cut = raw.find(b"\n")
    try:
        header = orjson.loads(raw if cut < 0 else raw[:cut])
    except orjson.JSONDecodeError:
        return 1
    version = header.get("format_version") if isinstance(header, dict) else None
    return version if type(version) is int else 1


def verify_chain(
    raw: bytes,
    key: LogKey | None,
    *,
    require_signature: bool = True,
    version: int | None = None,
) -> str | None:
    """Check one log file's chain and end-record HMAC; None if intact, else what is wrong
    (1-based line numbers). Without a key only the chain is checked. Without
    `require_signature`, a chain-intact prefix of a log (no signed end yet) passes too.
    `version`: the log's format version when the caller has read its header already."""
    if require_signature and raw and not raw.endswith(b"\n"):
        return "the last line is incomplete (truncated log)"
    if version is None:
        version = log_format_version(raw)
    if version == PREFIX_CHAIN_VERSION:
        return _verify_prefix(raw, key, require_signature)
    lines = raw.split(b"\n")
    lines.pop()  # b"", or a torn last line: the reader reports it (an incomplete episode)
    if not lines:
        return "empty log"
    # the hot loop does only what every line needs (find the mark, hash, compare, check
    # the line closes right after the hash); anything else is looked at once, after it
    previous = GENESIS.encode("ascii")
    mark, width = CHAIN_MARK, len(CHAIN_MARK)
    sha256 = hashlib.sha256
    lineno = 0
    for line in lines:
        lineno += 1
        at = line.rfind(mark)
        if at < 0:
            return _NO_CHAIN.format(lineno)
        # the chain is public: a plain comparison suffices (the HMAC is compared in
        # constant time below)
        expected = sha256(previous + line[:at]).hexdigest().encode("ascii")
        end = at + width + 64
        if line[at + width : end] != expected:
            return _MISMATCH.format(lineno)
        previous = expected
        if (len(line) != end + 2 or not line.endswith(b'"}')) and lineno != len(lines):
            return _inner_tail_problem(line[end:], lineno)
    last = lineno
    return _end_problem(
        lines[-1][end:], lambda: last, previous.decode("ascii"), key, require_signature
    )


_NO_CHAIN: Final = "line {}: no chain hash (an unsigned log, or a line added by hand)"
_MISMATCH: Final = "line {}: chain hash mismatch (the log was edited, reordered or spliced here)"


def _verify_prefix(raw: bytes, key: LogKey | None, require_signature: bool) -> str | None:
    """A v2 log: one SHA-256 over the file up to the last whole line's chain, which
    covers every byte before it. When that does not match, the lines are walked to name
    the first one that differs."""
    stop = raw.rfind(b"\n")  # the end of the last whole line (a torn one after it is the reader's)
    if stop < 0:
        return "empty log"
    start = raw.rfind(b"\n", 0, stop) + 1
    at = raw.rfind(CHAIN_MARK, start, stop)
    if at >= 0:
        running = hashlib.sha256(PREFIX_DOMAIN)
        running.update(memoryview(raw)[:at])
        chain = running.hexdigest()
        end = at + len(CHAIN_MARK) + 64
        if raw[at + len(CHAIN_MARK) : end] == chain.encode("ascii"):
            # the line's number is counted only for a message
            lineno = lambda: raw.count(b"\n", 0, stop) + 1  # noqa: E731
            return _end_problem(raw[end:stop], lineno, chain, key, require_signature)
    return _first_prefix_problem(raw[:stop].split(b"\n"))


def _first_prefix_problem(lines: list[bytes]) -> str:
    """The first line of a v2 log whose chain is missing, wrong or wrongly closed."""
    running = hashlib.sha256(PREFIX_DOMAIN)
    width = len(CHAIN_MARK)
    for lineno, line in enumerate(lines, 1):
        at = line.rfind(CHAIN_MARK)
        if at < 0:
            return _NO_CHAIN.format(lineno)
        running.update(line[:at])
        end = at + width + 64
        if line[at + width : end] != running.hexdigest().encode("ascii"):
            return _MISMATCH.format(lineno)
        if lineno != len(lines) and (len(line) != end + 2 or not line.endswith(b'"}')):
            return _inner_tail_problem(line[end:], lineno)
        running.update(line[at:] + b"\n")
    return _MISMATCH.format(len(lines))  # not reached: the last line's chain did not match


def _inner_tail_problem(tail: bytes, lineno: int) -> str:
    return _tail_problem(tail, lineno, last=False) or (
        f"line {lineno}: unexpected data after the chain hash"
    )


def _end_problem(
    tail: bytes,
    lineno: Callable[[], int],
    chain: str,
    key: LogKey | None,
    require_signature: bool,
) -> str | None:
    """What is wrong with the end of the last line, whose chain is intact (`lineno` gives
    that line's number, for a message)."""
    if tail == b'"}':
        if require_signature:
            return "the last line carries no HMAC (truncated, or not closed by the server)"
        return None
    if _tail_problem(tail, 0, last=True) is not None:  # then named with its line's number
        return _tail_problem(tail, lineno(), last=True)
    mac = tail[len(HMAC_MARK) : -2]
    if key is not None and not key.verify(chain, mac.decode("ascii")):
        return (
            f"line {lineno()}: HMAC does not match (forged, re-chained after an edit, "
            "or signed with another key)"
        )
    return None


def _tail_problem(tail: bytes, lineno: int, *, last: bool) -> str | None:
    """What is wrong with what follows a line's chain hash: only `"}` may, and on the last
    line `","hmac":"<64 hex>"}` (None when it is that)."""
    if tail == b'"}':
        return None
    if not (tail.startswith(HMAC_MARK) and tail.endswith(b'"}')):
        return f"line {lineno}: unexpected data after the chain hash"
    if not last:
        return f"line {lineno}: an HMAC-signed end record before the last line"
    if not _HEX64.fullmatch(tail[len(HMAC_MARK) : -2]):
        return f"line {lineno}: malformed HMAC"
    return None
