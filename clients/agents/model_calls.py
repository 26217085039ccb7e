"""An agent's model calls, sent to the server to be logged beside what they caused.

`Episode.log_model_call(...)` queues one record; the next call on the episode carries
every queued record in its request `_meta["taurec/model_calls"]`, and the server logs
them as `model_call` events before that call (docs/trajectory.md). A message the episode
has already sent (in an earlier input, or as an output) travels as its sha256 only, so
a growing conversation costs each message once. `provider_calls.report_call` queues a
litellm reply's call this way.

A loop of one's own over any MCP client records a call in one line, without an Episode:
`call_tool(..., meta=model_call_meta(model=..., messages=..., output=...))` on the next
tool call of the episode (every message travels whole then).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from taurec.tasks.trajectory.model_calls import sha256_of


@dataclass
class ModelCallOutbox:
    """The records an episode has not sent yet, and the contents the server has been sent."""

    pending: list[dict[str, Any]] = field(default_factory=list)
    sent: set[str] = field(default_factory=set)

    def add(
        self,
        *,
        model: str,
        messages: Sequence[Mapping[str, Any]],
        output: Mapping[str, Any] | None = None,
        usage: Mapping[str, Any] | None = None,
        settings: Mapping[str, Any] | None = None,
        tools: Sequence[Any] | None = None,
        latency_ms: float | None = None,
        cache_hit: bool | None = None,
        error: str | None = None,
        purpose: str | None = None,
    ) -> None:
        """Queue one call (see Episode.log_model_call). The contents are copied now: the
        caller may go on changing its message list."""
        record: dict[str, Any] = {"model": model, "input": [self._ref(m) for m in messages]}
        if tools:
            record["tools"] = self._ref(list(tools))
        if output is not None:
            record["output"] = _plain(output)
            self.sent.add(sha256_of(record["output"]))
        extras = {
            "usage": dict(usage) if usage else None,
            "settings": dict(settings) if settings else None,
            "latency_ms": latency_ms,
            "cache_hit": cache_hit,
            "error": error,
            "purpose": purpose,
        }
        record.update({k: v for k, v in extras.items() if v is not None})
        self.pending.append(record)

    def take(self) -> list[dict[str, Any]] | None:
        """The queued records (None when there are none), now counted as sent."""
        if not self.pending:
            return None
        taken, self.pending = self.pending, []
        return taken

    def _ref(self, value: Any) -> Any:
        """`value` itself the first time, its sha256 after that."""
        plain = _plain(value)
        digest = sha256_of(plain)
        if digest in self.sent:
            return digest
        self.sent.add(digest)
        return plain


def _plain(value: Any) -> Any:
    """`value` as plain JSON (a provider's message objects become dicts; anything JSON
    cannot hold becomes its string)."""
    return orjson.loads(orjson.dumps(value, default=_jsonable))


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_none=True)
    return str(value)


def model_call_meta(
    *, model: str, messages: Sequence[Mapping[str, Any]], **fields: Any
) -> dict[str, Any]:
    """The request `_meta` that logs one model call (the fields of Episode.log_model_call)
    before the tool call it is sent with: for a loop of one's own over any MCP client."""
    outbox = ModelCallOutbox()
    outbox.add(model=model, messages=messages, **fields)
    return {"taurec/model_calls": outbox.take()}  # base.MODEL_CALLS_META_KEY (base imports this)


@dataclass
class ModelCallRecorder:
    """One episode's model calls, for a loop of one's own over any MCP client:
    `record(...)` after each model call, then `meta()` as the next tool call's `_meta`.
    The first `meta()` also names the agent (`taurec/agent`: its kind, model and settings,
    for the log header); each message travels whole once and as its sha256 after that."""

    kind: str
    model: str
    settings: Mapping[str, Any] | None = None
    outbox: ModelCallOutbox = field(default_factory=ModelCallOutbox)
    named: bool = False

    def record(
        self, *, messages: Sequence[Mapping[str, Any]], model: str | None = None, **fields: Any
    ) -> None:
        """Queue one call: the messages sent and any of `ModelCallOutbox.add`'s fields
        (output, usage, settings, tools, latency_ms, error, ...); `model` defaults to the
        recorder's."""
        fields.setdefault("settings", self.settings)
        self.outbox.add(model=model or self.model, messages=messages, **fields)

    def meta(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        """The `_meta` for the next tool call: the queued calls (then sent), the agent's
        identity the first time, and `extra`; None when there is nothing to send."""
        out: dict[str, Any] = dict(extra or {})
        if not self.named:
            self.named = True
            agent: dict[str, Any] = {"kind": self.kind, "model": self.model}
            if self.settings:
                agent["settings"] = dict(self.settings)
            out["taurec/agent"] = agent
        taken = self.outbox.take()
        if taken:
            out["taurec/model_calls"] = taken
        return out or None
