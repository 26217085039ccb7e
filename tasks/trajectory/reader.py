"""Reading episode logs robustly: every problem is reported with file:line, never raised.

A log with problems still yields whatever could be parsed, so the evaluator can count the
episode (as an infrastructure error) instead of silently dropping it from n.
A file with no line of ours at all (a stray notes.jsonl) is `foreign` instead: not a
damaged log but no log, which the evaluator lists as skipped.

Validation is strict, as the JSON Schema is: `"left": "yes"` or `"seq": "3"` is an error,
not something to coerce (only integers are accepted where a number is expected).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from taurec.tasks.trajectory.format import EVENT_TYPES, Header, Trajectory
from taurec.tasks.trajectory.payloads import decode_events_lazily
from taurec.tasks.trajectory.records import EVENT_RECORD, EVENT_RECORDS, decode_events

NO_END = "no end record: the episode did not finish (incomplete log)"
NOT_A_LOG = "not a taurec log (no taurec-trajectory header line and no record of ours)"
#: How every header line starts (the writer's key order); a first line cut short by a
#: crash is still one of ours when it starts this way.
_HEADER_START = b'{"type":"header","format":"taurec-trajectory"'
#: The shortest start of a cut header line that is taken for ours.
_HEADER_CUT = len(b'{"type":')


@dataclass(frozen=True)
class LogProblem:
    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass
class ParsedLog:
    path: str
    header: Header | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    problems: list[LogProblem] = field(default_factory=list)
    #: Some other program's JSONL: not empty, and no line of it is ours, whole or damaged
    #: (the one problem is NOT_A_LOG). A damaged log of ours is never foreign.
    foreign: bool = False

    @property
    def ok(self) -> bool:
        return self.header is not None and not self.problems

    @property
    def unfinished(self) -> bool:
        """A clean log of an episode that has not ended (yet): its only problem is that."""
        return (
            self.header is not None
            and len(self.problems) == 1
            and self.problems[0].message == NO_END
        )

    @property
    def trajectory(self) -> Trajectory | None:
        """The whole episode, only when it parsed cleanly and ended."""
        if not self.ok or self.header is None:
            return None
        return Trajectory(header=self.header, events=self.events)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors(include_url=False)[0]
    loc = ".".join(str(p) for p in err["loc"] if p not in EVENT_TYPES)
    return f"field '{loc}': {err['msg']}" if loc else err["msg"]


def _parse_clean(raw: bytes, path: str, lazy: bool) -> ParsedLog | None:
    """The common case in one validation pass; None when anything is off (then the slow,
    line-by-line path finds and reports each problem). `lazy`: see `parse_log_bytes`."""
    cut = raw.find(b"\n")
    if cut < 0 or not raw.endswith(b"\n"):
        return None
    # orjson parses the events as one array (a blank line makes it invalid: slow path);
    # pydantic then checks the dicts in place (tool payloads typed Any are not rebuilt)
    body = raw[cut + 1 : -1]
    if not body:
        return None
    try:
        header = Header.model_validate_json(raw[:cut], strict=True)
        if lazy:  # every line and the order checked in one pass, payloads kept as bytes
            lazily = decode_events_lazily(body)
            if lazily is not None:
                return ParsedLog(path=path, header=header, events=lazily)
        # lines in the writer's order are checked by msgspec, one decoder per event
        # type; others are parsed as one array and checked by pydantic in place
        events = decode_events(body)
        if events is None:
            events = EVENT_RECORDS.validate_python(
                orjson.loads(b"[" + body.replace(b"\n", b",") + b"]"), strict=True
            )
    except (ValidationError, orjson.JSONDecodeError):
        return None
    if events[-1]["type"] != "end":
        return None
    for i, ev in enumerate(events, 1):
        if ev["seq"] != i or (ev["type"] == "end" and i != len(events)):
            return None
    return ParsedLog(path=path, header=header, events=events)


def parse_log_bytes(raw: bytes, path: str, *, lazy: bool = False) -> ParsedLog:
    """The log in `raw` (read from `path`), every line checked. `lazy`: a clean log's tool
    results' `content` and model calls' `output` and `settings` are kept as bytes
    (`msgspec.Raw`, decoded with payloads.payload; see payloads.py), for scoring, which
    seldom reads them; a log with any problem is read in full either way."""
    clean = _parse_clean(raw, path, lazy)
    if clean is not None:
        return clean
    out = ParsedLog(path=path)

    def problem(line: int | None, msg: str) -> None:
        out.problems.append(LogProblem(path, line, msg))

    if not raw.strip():
        problem(None, "empty log; expected a header line and events")
        return out
    lines = raw.split(b"\n")
    truncated = not raw.endswith(b"\n")
    ended_at: int | None = None
    ours = _looks_like_a_header(raw)  # else: some line must be a record of ours
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError:
            last = lineno == len(lines) and truncated
            problem(
                lineno,
                "truncated last line (the writer stopped mid-record)" if last else "not valid JSON",
            )
            continue
        if not isinstance(rec, dict):
            problem(lineno, f"expected a JSON object, got {type(rec).__name__}")
            continue
        kind = rec.get("type")
        ours = ours or kind == "header" or kind in EVENT_TYPES
        if lineno == 1 or (out.header is None and kind == "header"):
            if kind != "header":
                problem(lineno, f"first line must be the header record, got type {kind!r}")
                continue
            try:
                out.header = Header.model_validate_json(line, strict=True)
            except ValidationError as exc:
                problem(lineno, f"bad header: {_first_error(exc)}")
            continue
        if kind not in EVENT_TYPES:
            problem(
                lineno, f"unknown event type {kind!r}; expected one of {', '.join(EVENT_TYPES)}"
            )
            continue
        try:
            event = EVENT_RECORD.validate_python(rec, strict=True)
        except ValidationError as exc:
            problem(lineno, f"bad {kind} event: {_first_error(exc)}")
            continue
        if ended_at is not None:
            problem(lineno, f"event after the end record (line {ended_at})")
            continue
        expected_seq = len(out.events) + 1
        if event["seq"] != expected_seq:
            problem(lineno, f"seq {event['seq']} out of order; expected {expected_seq}")
        if event["type"] == "end":
            ended_at = lineno
        out.events.append(event)
    if not ours:
        out.foreign = True
        out.problems = [LogProblem(path, None, NOT_A_LOG)]
        return out
    if out.header is None and not any(p.message.startswith("bad header") for p in out.problems):
        problem(1, "no header record")
    if ended_at is None:
        problem(None, NO_END)
    return out


def _looks_like_a_header(raw: bytes) -> bool:
    """Whether `raw` holds our header mark, or its first line is a header's start (cut)."""
    first = raw.split(b"\n", 1)[0].strip()
    cut = len(first) >= _HEADER_CUT and _HEADER_START.startswith(first)
    return cut or b'"taurec-trajectory"' in raw


def read_log(path: str | Path) -> ParsedLog:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        return ParsedLog(
            path=str(p), problems=[LogProblem(str(p), None, f"cannot read: {exc.strerror}")]
        )
    return parse_log_bytes(raw, str(p))
