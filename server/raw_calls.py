"""Each tools/call request as the agent sent it, before the MCP SDK parses it.

Three things need the raw request:

- Rejected calls. The SDK validates arguments against a tool's input schema first: a
  call with a wrong type or an out-of-range number never reaches our code, yet the agent
  made it and saw an error. Such calls are logged here (as tool_call + tool_result with
  the exact error text), so an episode log holds every call the agent made on it.
- Raw strings. For a parameter typed `str | None` the SDK JSON-decodes string values
  first, so the string "null" would arrive as None: an abstention the agent never made.
  `raw_argument` gives a tool the value exactly as sent.
- Unknown arguments. The SDK drops arguments a tool does not take, so a misspelled
  filter would silently widen a search; `mark_reached` refuses them instead.

It also keeps two request `_meta` entries: `"taurec/usage"` (an agent's cumulative LLM
usage, see `request_usage`), which the episode writes into its end record, and
`"taurec/aside"` (text the agent produced alongside this call without sending it to the
user, see `request_aside`), which the episode logs as an undelivered agent message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from .errors import ArgumentError


@dataclass
class _RawCall:
    arguments: dict[str, Any] = field(default_factory=dict)
    accepted: frozenset[str] = frozenset()  # the argument names the tool takes
    reached: bool = False  # the tool function ran (and so logged the call itself)
    usage: Any = None  # the request's _meta[USAGE_META_KEY], unchecked
    aside: Any = None  # the request's _meta[ASIDE_META_KEY], unchecked


# A per-request slot (each request runs in its own context), not shared state.
_CURRENT: ContextVar[_RawCall | None] = ContextVar("taurec_raw_call", default=None)
_ABSENT = object()

#: The request `_meta` key under which an agent reports its cumulative LLM usage.
USAGE_META_KEY = "taurec/usage"
#: The request `_meta` key for text the agent wrote alongside a call but did not send.
ASIDE_META_KEY = "taurec/aside"


def mark_reached() -> None:
    """Called by every episode tool once its arguments passed the SDK's validation.

    Raises ArgumentError for an argument the tool does not take; the call then counts as
    rejected (the middleware logs it).
    """
    current = _CURRENT.get()
    if current is None:
        return
    unknown = sorted(set(current.arguments) - current.accepted)
    if unknown:
        raise ArgumentError(
            unknown[0],
            f"is not an argument of this tool; expected some of: {', '.join(sorted(current.accepted))}",
        )
    current.reached = True


def raw_argument(name: str, parsed: Any) -> Any:
    """The argument `name` as the agent sent it: a string stays a string. `parsed` (the
    SDK's value) when there is no raw request (a direct in-process call)."""
    current = _CURRENT.get()
    raw = _ABSENT if current is None else current.arguments.get(name, _ABSENT)
    return raw if isinstance(raw, str) else parsed


def request_usage() -> Any:
    """The `_meta["taurec/usage"]` value of the current tools/call request, as sent
    (None when absent or outside a request). The caller validates it."""
    current = _CURRENT.get()
    return None if current is None else current.usage


def request_aside() -> Any:
    """The `_meta["taurec/aside"]` value of the current tools/call request, as sent
    (None when absent or outside a request). The caller validates it."""
    current = _CURRENT.get()
    return None if current is None else current.aside


RejectedLogger = Callable[[str, dict[str, Any], str], Awaitable[None]]


class RawCallMiddleware:
    """Server middleware for `tools/call` requests to `tools`: keeps the raw arguments
    for the tool, and logs calls rejected before the tool ran."""

    def __init__(self, tools: Mapping[str, frozenset[str]], log_rejected: RejectedLogger) -> None:
        self._tools = tools  # tool name -> the argument names it takes
        self._log_rejected = log_rejected

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params or {}
        name = params.get("name")
        if ctx.method != "tools/call" or name not in self._tools:
            return await call_next(ctx)
        arguments = params.get("arguments")
        call = _RawCall(
            dict(arguments) if isinstance(arguments, dict) else {}, self._tools[str(name)]
        )
        meta = ctx.meta if ctx.meta is not None else params.get("_meta")
        if isinstance(meta, Mapping):
            call.usage = meta.get(USAGE_META_KEY)
            call.aside = meta.get(ASIDE_META_KEY)
        token = _CURRENT.set(call)
        try:
            result = await call_next(ctx)
        finally:
            _CURRENT.reset(token)
        if not call.reached and isinstance(result, dict):
            text = _error_text(result)
            if text is not None:
                await self._log_rejected(str(name), call.arguments, text)
        return result


def _error_text(result: dict[str, Any]) -> str | None:
    if not result.get("isError"):
        return None
    blocks = result.get("content") or []
    texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(texts)
