"""Logging model calls: the agent's (its client reports them) and the server's own (the
LLM user, the LLM customer, the LLM NLU), as `model_call` events of the episode's log,
their messages in the episode's own prompt store (see taurec.tasks.trajectory.model_calls),
so the cap below bounds what one episode's client can write, and nothing it writes can
push another episode's messages past what readers read.

The agent's calls come in a request's `_meta["taurec/model_calls"]` (request_meta.py):
a list of records, each {model, settings, input, tools, output, usage, latency_ms,
cache_hit, error, purpose}, where an `input` entry is a message object or the sha256 of
one this episode's client sent before (so a growing conversation is sent once). The
episode's writer logs them before the first event the request causes. A record that is
malformed, or names a message the episode never sent, is logged as a one-line `detail`
instead; a client's records are capped at `max_model_call_bytes_per_episode` bytes per
episode (events and new store entries), after which one note says so and the rest are
dropped: a hostile client cannot flood the log.

The server's own calls reach the log through `emit_model_call`, which records into the
log of the episode whose step is running (`capturing`), also from a worker thread.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from taurec.server.defaults import MAX_MODEL_CALL_BYTES_PER_EPISODE
from taurec.server.request_meta import take_model_calls
from taurec.server.trajectory_writer import LOG_FILE_MODE, TrajectoryWriter
from taurec.tasks.errors import short_repr
from taurec.tasks.trajectory.format import MAX_SAFE_INT
from taurec.tasks.trajectory.model_calls import canonical, episode_store, prompt_of
from taurec.tasks.trajectory.secrets import scrub

log = logging.getLogger(__name__)

#: Records one request may carry; the rest are noted and dropped.
MAX_RECORDS_PER_REQUEST: Final = 1_000
#: The longest `detail` or `error` text logged.
MAX_NOTE_CHARS: Final = 500
_HEX64 = r"^[0-9a-f]{64}$"
_Text = Annotated[str, Field(max_length=200)]
#: A setting's value: a scalar, or a short list of strings (stop sequences).
_Setting = StrictBool | int | float | _Text | Annotated[list[_Text], Field(max_length=16)] | None


class _Usage(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    prompt_tokens: int | None = Field(default=None, ge=0, le=MAX_SAFE_INT)
    completion_tokens: int | None = Field(default=None, ge=0, le=MAX_SAFE_INT)
    cost_usd: float | None = Field(default=None, ge=0, allow_inf_nan=False)


class ClientRecord(BaseModel):
    """One model call as a client reports it (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1, max_length=200)
    purpose: str | None = Field(default=None, max_length=64)
    settings: dict[Annotated[str, Field(max_length=64)], _Setting] = Field(
        default_factory=dict, max_length=32
    )
    input: list[dict[str, Any] | Annotated[str, Field(pattern=_HEX64)]] = Field(
        default_factory=list, max_length=100_000
    )
    tools: list[Any] | Annotated[str, Field(pattern=_HEX64)] | None = None
    output: dict[str, Any] | None = None
    usage: _Usage | None = None
    latency_ms: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    cache_hit: StrictBool | None = None
    error: str | None = Field(default=None, max_length=MAX_NOTE_CHARS)


class Refused(ValueError):
    """A record that cannot be logged as sent: the message says what and what is expected."""


class PromptStore:
    """The prompt store of one episode: append-only, each entry once (threads share it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._known: set[str] = set()

    def new(self, digest: str) -> bool:
        return digest not in self._known

    def put(self, entries: dict[str, bytes]) -> None:
        """Append the lines of `entries` (sha256 -> line) not written yet, in one write.
        OSError when the file cannot be written (nothing is marked written then)."""
        with self._lock:
            fresh = {h: line for h, line in entries.items() if h not in self._known}
            if not fresh:
                return
            data = b"".join(fresh.values())
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, LOG_FILE_MODE)
            try:
                size = os.fstat(fd).st_size
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view) :]
                except OSError:
                    os.ftruncate(fd, size)  # whole lines only
                    raise
            finally:
                os.close(fd)
            self._known.update(fresh)


class PromptStores:
    """One server's prompt stores (each episode's own) and the cap on a client's records."""

    def __init__(self, max_bytes_per_episode: int = MAX_MODEL_CALL_BYTES_PER_EPISODE) -> None:
        self.max_bytes_per_episode = max_bytes_per_episode

    def for_log(self, log_path: Path) -> PromptStore:
        """The store of the episode whose log is at `log_path` (made on its first entry)."""
        return PromptStore(episode_store(log_path))


def simulator_model(record: dict[str, Any]) -> str | None:
    """The model of a simulated user from its header settings record (an LLM user's, an
    LLM customer's, or the LLM words of a rule-based user); None for one without."""
    for found in (record, record.get("nlg")):
        model = found.get("model") if isinstance(found, dict) else None
        if isinstance(model, str) and model:
            return model
    return None


def attach(writer: TrajectoryWriter, stores: PromptStores | None) -> TrajectoryWriter:
    """`writer`, given its episode's model-call log (`stores` None: a private set)."""
    stores = stores if stores is not None else PromptStores()
    ModelCallLog(writer, stores.for_log(writer.path), stores.max_bytes_per_episode)
    return writer


# The model-call log of the episode whose step is running (see `capturing`).
_SINK: ContextVar[ModelCallLog | None] = ContextVar("taurec_model_call_sink", default=None)


@contextmanager
def capturing(writer: TrajectoryWriter) -> Iterator[None]:
    """While the block runs (and in worker threads it starts), `emit_model_call` records
    into `writer`'s episode."""
    token = _SINK.set(writer.model_calls if isinstance(writer.model_calls, ModelCallLog) else None)
    try:
        yield
    finally:
        _SINK.reset(token)


def emit_model_call(caller: str, model: str, messages: list[dict[str, Any]], **fields: Any) -> None:
    """Log one of the server's own model calls in the running episode's log (nothing
    outside one). `fields`: purpose, settings, output, usage, latency_ms, cache_hit, error."""
    sink = _SINK.get()
    if sink is not None:
        sink.record(caller, model, messages, **fields)


class ModelCallLog:
    """One episode's model calls (see the module docstring). Callers hold the episode's
    lock, so one episode's records never interleave."""

    def __init__(self, writer: TrajectoryWriter, store: PromptStore, max_bytes: int) -> None:
        self._writer = writer
        self._store = store
        self._max_bytes = max_bytes
        self.used = 0  # bytes the client's records added
        self.dropped = 0  # records not logged past the cap
        self._known: set[str] = set()  # contents this episode has sent (may be named)
        self._last: dict[tuple[str, str | None], tuple[str, list[str]]] = {}
        writer.model_calls = self

    def take_request(self) -> None:
        """Log the model calls the current request reports, once."""
        raw = take_model_calls()
        if raw is not None:
            self.from_client(raw)

    def from_client(self, raw: Any) -> None:
        """Log a client's records (a request's `_meta["taurec/model_calls"]`)."""
        if not isinstance(raw, list):
            self._client_note(
                "unknown", f"expected a list of model-call records, got {short_repr(raw)}"
            )
            return
        for n, item in enumerate(raw):
            if n == MAX_RECORDS_PER_REQUEST:
                more = len(raw) - n
                self._client_note(
                    "unknown", f"{more} records over {MAX_RECORDS_PER_REQUEST} a request dropped"
                )
                return
            self._client_record(item)

    def record(
        self, caller: str, model: str, messages: list[dict[str, Any]], **fields: Any
    ) -> None:
        """Log one of the server's own calls (trusted: not capped)."""
        try:
            call = self._prepare(caller, model, list(messages), fields)
        except Refused as exc:
            log.warning("model call of %s not logged: %s", caller, exc)
            return
        self._write(call)

    # --- internals ---------------------------------------------------------------------

    def _client_record(self, item: Any) -> None:
        model = item.get("model") if isinstance(item, dict) else None
        model = model if isinstance(model, str) and 0 < len(model) <= 200 else "unknown"
        if self.dropped:  # the cap was reached: nothing more is logged
            self.dropped += 1
            return
        try:
            record = ClientRecord.model_validate(item)
            fields = record.model_dump(exclude={"model", "input"}, exclude_none=True)
            call = self._prepare("agent", record.model, record.input, fields)
        except ValidationError as exc:
            self._client_note(model, f"malformed model-call record: {_problem(exc)}")
            return
        except Refused as exc:
            self._client_note(model, f"model-call record not logged: {exc}")
            return
        size = len(canonical(call.event)) + sum(len(line) for line in call.lines.values())
        if self.used + size > self._max_bytes:
            self._cap_reached(model)
            return
        self.used += size
        self._write(call)

    def _client_note(self, model: str, text: str) -> None:
        """A note in place of a record (past the cap: the cap's note, once)."""
        if self.dropped:
            self.dropped += 1
            return
        event = {"caller": "agent", "model": model, "detail": text[:MAX_NOTE_CHARS]}
        size = len(canonical(event))
        if self.used + size > self._max_bytes:
            self._cap_reached(model)
            return
        self.used += size
        self._write(_Call(event))

    def _cap_reached(self, model: str) -> None:
        """Say once that the cap is reached; from now on the client's records are dropped."""
        self.dropped = 1
        text = (
            f"the agent's model calls reached this server's cap of {self._max_bytes:,} bytes "
            "per episode (max_model_call_bytes_per_episode): this record and later ones are "
            "not logged"
        )
        self._write(_Call({"caller": "agent", "model": model, "detail": text}))

    def _prepare(
        self, caller: str, model: str, messages: list[Any], fields: dict[str, Any]
    ) -> _Call:
        """The event for one call and the store lines it needs; Refused when a message is
        not JSON or names content this episode never sent."""
        call = _Call({"caller": caller, "model": model})
        event = call.event
        for name in ("purpose", "settings"):
            if fields.get(name):
                event[name] = fields[name]
        hashes = [self._content(m, f"input[{i}]", call) for i, m in enumerate(messages)]
        call.key = (caller, fields.get("purpose"))
        prefix, previous = self._last.get(call.key, (None, []))
        if previous and hashes[: len(previous)] == previous:
            prompt = prompt_of(prefix, hashes[len(previous) :])
        else:
            prompt = prompt_of(None, hashes)
        event["input"] = self._entry("prompt", prompt, call)
        event["input_messages"] = len(hashes)
        call.hashes = hashes
        if fields.get("tools") is not None:
            event["tools"] = self._content(fields["tools"], "tools", call)
        if fields.get("output") is not None:
            self._content(fields["output"], "output", call)  # a later input may name it
            event["output"] = fields["output"]
        for name in ("usage", "cache_hit", "error", "latency_ms"):
            if fields.get(name) is not None:
                event[name] = fields[name]
        if isinstance(event.get("error"), str):  # an exception's text may hold a key
            event["error"] = scrub(event["error"])[:MAX_NOTE_CHARS]
        return call

    def _content(self, value: Any, where: str, call: _Call) -> str:
        if isinstance(value, str):  # a reference to content sent before
            if value not in self._known and value not in call.sent:
                raise Refused(
                    f"{where}: {value[:12]}... names no message this episode sent; send "
                    "the message itself the first time"
                )
            return value
        digest = self._entry("content", value, call)
        call.sent.add(digest)
        return digest

    def _entry(self, kind: str, value: Any, call: _Call) -> str:
        try:
            body = canonical(value)
        except TypeError as exc:
            raise Refused(f"{kind} is not JSON ({exc})") from None
        digest = hashlib.sha256(body).hexdigest()
        if self._store.new(digest) and digest not in call.lines:
            head = b'{"sha256":"' + digest.encode() + b'","' + kind.encode() + b'":'
            call.lines[digest] = head + body + b"}\n"
        return digest

    def _write(self, call: _Call) -> None:
        event = call.event
        if call.lines:
            try:
                self._store.put(call.lines)
            except OSError as exc:
                log.error("%s: cannot write the prompt store: %s", self._store.path, exc)
                for name in ("input", "input_messages", "tools"):
                    event.pop(name, None)
                event["detail"] = f"the prompt store could not be written ({exc.strerror or exc})"
                call.key = None
        if self._writer.ended:
            return
        latency = event.pop("latency_ms", None)
        self._writer.model_call(event, latency)
        self._known |= call.sent
        if call.key is not None and "input" in event:
            self._last[call.key] = (event["input"], call.hashes)


def _problem(exc: ValidationError) -> str:
    """The first thing wrong with a record, and what was expected, in one line."""
    err = exc.errors(include_url=False)[0]
    loc = list(err["loc"])
    if len(loc) >= 2 and loc[0] == "settings":
        return (
            f"settings.{loc[1]}: expected a number, a string of at most 200 characters, true, "
            "false, null or a list of at most 16 strings"
        )
    if len(loc) >= 2 and loc[0] == "input" and isinstance(loc[1], int):
        return (
            f"input[{loc[1]}]: expected a message object or the sha256 of a message this "
            "episode sent before"
        )
    return f"{'.'.join(str(p) for p in loc) or 'record'}: {err['msg']}"


@dataclass
class _Call:
    """One call being logged: its event, the store lines it adds (sha256 -> line), the
    contents it sent, and the prompt it continues (by caller and purpose)."""

    event: dict[str, Any]
    lines: dict[str, bytes] = field(default_factory=dict)
    sent: set[str] = field(default_factory=set)
    key: tuple[str, str | None] | None = None
    hashes: list[str] = field(default_factory=list)
