"""Each tools/call request as the agent sent it, before the MCP SDK parses it.

Three things need the raw request:

- Rejected calls. The SDK validates arguments against a tool's input schema first: a
  call with a wrong type or an out-of-range number never reaches our code, yet the agent
  made it and saw an error. Such calls are logged here (as tool_call + tool_result with
  the exact error text), so an episode log holds every call the agent made on it. The
  SDK lists every validation problem (one per bad item of a long list), so the error is
  cut to MAX_ERROR_TEXT characters; arguments no JSON writer can write as sent (whole
  numbers beyond 64 bits, nesting deeper than a writer allows) are logged cut down.
- Raw strings. For a parameter typed `str | None` the SDK JSON-decodes string values
  first, so the string "null" would arrive as None: an abstention the agent never made.
  `raw_argument` gives a tool the value exactly as sent.
- Unknown arguments. The SDK drops arguments a tool does not take, so a misspelled
  filter would silently widen a search; `mark_reached` refuses them instead.

It also keeps three request `_meta` entries: `"taurec/usage"` (an agent's cumulative LLM
usage, see `request_usage`), which the episode writes into its end record,
`"taurec/aside"` (text the agent produced alongside this call without sending it to the
user, see `request_aside`), which the episode logs as an undelivered agent message, and
`"taurec/batch"` (the model response the call came in, see `request_batch`). A rejected
call is logged while its request is still current, so its logger can read them too.

And, for every request, who sent it (`request_owner`, set by `OwnerMiddleware` on every
kind's server): over HTTP, a digest of its bearer token when the server knows that token
(its `--auth-token` or a plan's), else its remote address, so that made-up tokens do not
make new clients; "open" over stdio and in process. Per-client limits count by it.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Final

import orjson
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from taurec.server.http_fairness import reset_turn, use_turn
from taurec.tasks.errors import ArgumentError, short_repr

log = logging.getLogger(__name__)


@dataclass
class _RawCall:
    arguments: dict[str, Any] = field(default_factory=dict)
    accepted: frozenset[str] = frozenset()  # the argument names the tool takes
    reached: bool = False  # the tool function ran (and so logged the call itself)
    usage: Any = None  # the request's _meta[USAGE_META_KEY], unchecked
    aside: Any = None  # the request's _meta[ASIDE_META_KEY], unchecked
    batch: Any = None  # the request's _meta[BATCH_META_KEY], unchecked


# A per-request slot (each request runs in its own context), not shared state.
_CURRENT: ContextVar[_RawCall | None] = ContextVar("taurec_raw_call", default=None)
_OWNER: ContextVar[str] = ContextVar("taurec_request_owner", default="open")
_ABSENT = object()

#: The ASGI scope key under which the HTTP guard leaves the owner it decided.
OWNER_SCOPE_KEY: Final = "taurec.owner"
#: The request `_meta` key under which an agent reports its cumulative LLM usage.
USAGE_META_KEY = "taurec/usage"
#: The request `_meta` key for text the agent wrote alongside a call but did not send.
ASIDE_META_KEY = "taurec/aside"
#: The request `_meta` key naming the model response a call came in (its batch).
BATCH_META_KEY = "taurec/batch"
#: How deeply nested a rejected call's argument may be in its log record; deeper parts
#: are logged as a short repr (a JSON writer has a nesting limit, and a log line is no
#: place for a 200-level structure).
MAX_LOGGED_DEPTH: Final = 32
#: How many items of a list such a call's log record keeps (the rest are counted).
MAX_LOGGED_ITEMS: Final = 1_000
_INT64: Final = range(-(2**63), 2**63)
#: The longest error text a rejected call answers with. The SDK lists every validation
#: error, one per bad element of a list: 10,000 bad ids would be megabytes of text.
MAX_ERROR_TEXT: Final = 2_000


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


def request_batch() -> Any:
    """The `_meta["taurec/batch"]` value of the current tools/call request, as sent (None
    when absent or outside a request). The caller validates it."""
    current = _CURRENT.get()
    return None if current is None else current.batch


def request_owner() -> str:
    """Who sent the current request (see `owner_of`): "token:<digest>", "address:<host>",
    or "open" (stdio, in process)."""
    return _OWNER.get()


def bearer_token(request: Any) -> str | None:
    """The bearer token of a transport request (a Starlette request over HTTP), if any."""
    headers = getattr(request, "headers", None)
    value = headers.get("authorization", "") if headers is not None else ""
    scheme, _, token = str(value).partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def owner_of(request: Any) -> str:
    """The owner a transport request (a Starlette request over HTTP; None otherwise)
    stands for: the one the HTTP guard decided (`token_owner` of a token the server
    knows, else `address_owner`); for an HTTP request the guard did not see, its address
    (only the guard can vouch for a token); "open" outside HTTP."""
    scope = getattr(request, "scope", None)
    if not isinstance(scope, Mapping):
        return "open"
    owner = scope.get(OWNER_SCOPE_KEY)
    return owner if isinstance(owner, str) else address_owner(scope.get("client"))


def token_owner(token: str) -> str:
    """The owner a known bearer token stands for: a digest (the token is never kept)."""
    return "token:" + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:32]


def address_owner(client: Any) -> str:
    """The owner of a request without a known token: its remote host (`client` is the ASGI
    scope's (host, port)), whatever token it carries; "open" when the address is unknown."""
    host = client[0] if isinstance(client, tuple | list) and client else None
    return f"address:{host}" if isinstance(host, str) and host else "open"


class OwnerMiddleware:
    """Server middleware that makes each request's owner (`owner_of`) the one
    `request_owner` answers while it is handled, and its HTTP turn (http_fairness.py) the
    one `outside_the_gate` gives away."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        owner = _OWNER.set(owner_of(ctx.request))
        turn = use_turn(getattr(ctx.request, "scope", None))  # its HTTP turn (http_fairness)
        try:
            return await call_next(ctx)
        finally:
            reset_turn(turn)
            _OWNER.reset(owner)


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
            call.batch = meta.get(BATCH_META_KEY)
        token = _CURRENT.set(call)
        try:
            result = await call_next(ctx)
            if not call.reached and isinstance(result, dict):
                text = _error_text(result)
                if text is not None:
                    result, text = _bounded(result, text)
                    try:
                        await self._log_rejected(str(name), loggable(call.arguments), text)
                    except Exception:  # the agent still gets its error; the log lacks the call
                        log.exception("could not log a rejected %s call", name)
        finally:
            _CURRENT.reset(token)
        return result


def loggable(arguments: dict[str, Any]) -> dict[str, Any]:
    """A rejected call's `arguments` (JSON as the agent sent it) in a form the episode log
    can hold: as they are, unless a JSON writer cannot write them; then whole numbers beyond
    64 bits, and nesting deeper than MAX_LOGGED_DEPTH, become short repr strings, and lists
    keep their first MAX_LOGGED_ITEMS items."""
    try:
        orjson.dumps([[arguments]])  # with room for the log record around them
    except (TypeError, orjson.JSONEncodeError):
        cut: dict[str, Any] = _cut(arguments, 0)
        return cut
    return arguments


def _cut(value: Any, depth: int) -> Any:
    if value is None or isinstance(value, bool | str | float):
        return value
    if isinstance(value, int):
        return value if value in _INT64 else _number_repr(value)
    if depth >= MAX_LOGGED_DEPTH or not isinstance(value, dict | list | tuple):
        return short_repr(value)
    more = (
        f"<{len(value) - MAX_LOGGED_ITEMS} more items>" if len(value) > MAX_LOGGED_ITEMS else None
    )
    if isinstance(value, dict):
        cut = {str(k): _cut(v, depth + 1) for k, v in islice(value.items(), MAX_LOGGED_ITEMS)}
        return cut if more is None else {**cut, "<more>": more}
    kept = [_cut(v, depth + 1) for v in value[:MAX_LOGGED_ITEMS]]
    return kept if more is None else [*kept, more]


def _number_repr(value: int) -> str:
    if value.bit_length() > 256:  # its digits would be long (or beyond what Python prints)
        return f"<a whole number of {value.bit_length()} bits>"
    return short_repr(value)


def _bounded(result: dict[str, Any], text: str) -> tuple[dict[str, Any], str]:
    """The error result cut to about MAX_ERROR_TEXT characters, at the end of a problem
    (the first ones; the text's first line counts them all), and its new text."""
    if len(text) <= MAX_ERROR_TEXT:
        return result, text
    lines = text[:MAX_ERROR_TEXT].split("\n")[:-1] or [text[:MAX_ERROR_TEXT]]
    if len(lines) > 1 and not lines[-1].startswith(" "):  # a problem's name without its text
        lines.pop()
    head = "\n".join(lines)
    text = f"{head}\n... ({len(text) - len(head):,} more characters of the same kind cut)"
    return {**result, "content": [{"type": "text", "text": text}]}, text


def _error_text(result: dict[str, Any]) -> str | None:
    if not result.get("isError"):
        return None
    blocks = result.get("content") or []
    texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(texts)
