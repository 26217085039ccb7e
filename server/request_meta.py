"""What a client reports about its agent in a tools/call request's `_meta`, on every kind's
server: `"taurec/model_calls"` (the model calls it made since its last request; see
model_call_log.py), `"taurec/agent"` (on start_episode: the agent's kind, model and
settings, for the log header's `agent`) and `"taurec/traceback"` (on abort_episode: the
agent's traceback, for the end record). All are the client's own word, like its usage
report: checked for shape and size, never trusted for a verdict.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from taurec.tasks.trajectory.format import traceback_tail

log = logging.getLogger(__name__)

#: The request `_meta` key carrying the client's model-call records.
MODEL_CALLS_META_KEY: Final = "taurec/model_calls"
#: The request `_meta` key carrying the agent's kind, model and settings (start_episode).
AGENT_META_KEY: Final = "taurec/agent"
#: The request `_meta` key carrying the agent's traceback (abort_episode).
TRACEBACK_META_KEY: Final = "taurec/traceback"
#: Bounds of a reported agent: its kind's and model's length, its settings' count and
#: each string setting's length.
MAX_AGENT_KIND: Final = 64
MAX_AGENT_MODEL: Final = 200
MAX_AGENT_SETTINGS: Final = 32
MAX_SETTING_CHARS: Final = 200


@dataclass
class _Request:
    meta: Mapping[str, Any]
    calls_taken: bool = False


# A per-request slot (each request runs in its own context), not shared state.
_CURRENT: ContextVar[_Request | None] = ContextVar("taurec_request_meta", default=None)


class RequestMetaMiddleware:
    """Server middleware: keeps each tools/call request's `_meta` while it is handled."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params or {}
        meta = ctx.meta if ctx.meta is not None else params.get("_meta")
        if ctx.method != "tools/call" or not isinstance(meta, Mapping):
            return await call_next(ctx)
        token = _CURRENT.set(_Request(meta))
        try:
            return await call_next(ctx)
        finally:
            _CURRENT.reset(token)


def take_model_calls() -> Any:
    """The current request's `_meta["taurec/model_calls"]`, as sent, the first time it is
    asked for; None after that, when absent, or outside a request."""
    current = _CURRENT.get()
    if current is None or current.calls_taken:
        return None
    current.calls_taken = True
    return current.meta.get(MODEL_CALLS_META_KEY)


def reported_traceback() -> str | None:
    """The current request's `_meta["taurec/traceback"]`, cut to its last
    MAX_TRACEBACK_BYTES (however much was sent); None when absent or not a string (noted
    on stderr)."""
    current = _CURRENT.get()
    raw = None if current is None else current.meta.get(TRACEBACK_META_KEY)
    if raw is None:
        return None
    if not isinstance(raw, str):
        log.warning("ignoring a malformed %s (not a string)", TRACEBACK_META_KEY)
        return None
    return traceback_tail(raw)


def reported_agent() -> dict[str, Any]:
    """The current request's `_meta["taurec/agent"]` as AgentInfo fields (kind, model,
    settings), each kept only when well formed; {} when absent. A malformed report is
    left out and noted on stderr."""
    current = _CURRENT.get()
    raw = None if current is None else current.meta.get(AGENT_META_KEY)
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        log.warning("ignoring a malformed %s (not an object)", AGENT_META_KEY)
        return {}
    out: dict[str, Any] = {}
    for name, most in (("kind", MAX_AGENT_KIND), ("model", MAX_AGENT_MODEL)):
        value = raw.get(name)
        if isinstance(value, str) and 0 < len(value) <= most and value.isprintable():
            out[name] = value
        elif value is not None:
            log.warning(
                "ignoring %s.%s: expected a printable string of 1-%d characters",
                AGENT_META_KEY,
                name,
                most,
            )
    settings = raw.get("settings")
    if isinstance(settings, Mapping) and len(settings) <= MAX_AGENT_SETTINGS:
        kept = {str(k)[:64]: v for k, v in settings.items() if _scalar(v)}
        if kept:
            out["settings"] = kept
    elif settings is not None:
        log.warning(
            "ignoring %s.settings: expected an object of at most %d entries",
            AGENT_META_KEY,
            MAX_AGENT_SETTINGS,
        )
    return out


def _scalar(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= MAX_SETTING_CHARS
    return value is None or (isinstance(value, bool | int | float) and abs(value) < 2**53)
