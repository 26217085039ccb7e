"""The front door of `taurec serve --transport http`: ASGI middleware in front of the MCP
SDK's Streamable HTTP app, for every path.

Each request, in this order, is refused when:

1. the server is shutting down: 503 (requests already in flight run to completion);
2. its Host header does not name this server: 421. DNS rebinding: a web page on
   evil.example whose name an attacker re-points at 127.0.0.1 reaches a loopback server,
   but its browser still sends `Host: evil.example`;
3. it has an Origin header naming another site: 403 (a browser page elsewhere);
4. the server has a bearer token and the request lacks it or has another one: 401 with
   `WWW-Authenticate: Bearer` (compared in constant time);
5. its client has sent more than `rate.per_second` requests a second (beyond a burst of
   `rate.burst`): 429 with Retry-After, before its body is read (http_rate.py);
6. its body is over `max_request_bytes`: 413, counted as the body streams in, so a
   chunked body or a false Content-Length is caught too;
7. it would open a stateful MCP session for a client that already holds
   `sessions.max_per_client` of them: 429 with Retry-After (http_sessions.py).

A request that passes waits for its turn (http_fairness.py: turns are handed out client
by client, so a flood of cheap calls cannot slow another client's) before it reaches the
app; a GET (a client's listening stream, open for as long as it likes) takes none.

From check 5 on, a request has its owner, the client per-client limits count it under
(raw_calls.owner_of): a digest of its bearer token when the token is one this server
knows, else its remote address. With no token configured (an open server) any token is
let through but makes no new client.

A refusal's body is a JSON-RPC error object (application/json): MCP clients show its
message to the user instead of a bare status code.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from typing import Any, Final
from urllib.parse import urlsplit

import anyio
import orjson

from taurec.server.defaults import AUTH_TOKEN_ENV
from taurec.server.http_fairness import TURN_SCOPE_KEY, FairGate
from taurec.server.http_rate import RequestRate, TooManyRequests
from taurec.server.http_sessions import SessionTable, TooManySessions
from taurec.server.raw_calls import OWNER_SCOPE_KEY, address_owner, token_owner
from taurec.server.settings import HttpSettings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: JSON-RPC "Invalid Request": the code of every refusal.
INVALID_REQUEST: Final = -32600
_NOT_IN_A_HOST: Final = frozenset("@/\\?# \t")


class Refusal(Exception):
    """A request this guard answers itself, with `status` and a message naming what was
    wrong and what was expected."""

    def __init__(self, status: int, message: str, headers: Iterable[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = list(headers)

    async def send(self, send: Send) -> None:
        body = orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": INVALID_REQUEST, "message": self.message},
            }
        )
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *((k.encode("latin-1"), v.encode("latin-1")) for k, v in self.headers),
        ]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class HttpGuard:
    """Host, Origin, bearer-token, request-rate, body-size and session checks around
    `app`, each request's owner, and a graceful stop: `begin_shutdown` refuses new
    requests and ends open listening (GET) streams, while requests in flight (tool calls)
    finish."""

    def __init__(
        self, app: ASGIApp, settings: HttpSettings, plan_tokens: Sequence[str] = ()
    ) -> None:
        """`plan_tokens`: the tokens of the sealed plans served; each is accepted too."""
        self._app = app
        self._names = settings.host_names
        self._shown_names = ", ".join(sorted(self._names))
        tokens = [settings.token, *plan_tokens]
        self._tokens = [t.encode() for t in tokens if t is not None]
        self._max_bytes = settings.max_request_bytes
        self._streams: set[anyio.CancelScope] = set()  # open GET streams, ended on shutdown
        self._closing = False
        self._bytes_read = 0  # request body bytes read since take_bytes_read
        limits = settings.sessions
        self.sessions = SessionTable(
            limits.max_per_client, limits.idle_seconds, max_sessions=limits.max_sessions
        )
        self.rate = RequestRate(settings.rate)
        self.gate = FairGate()

    def take_bytes_read(self) -> int:
        """Request body bytes read since the last call."""
        read, self._bytes_read = self._bytes_read, 0
        return read

    @property
    def closing(self) -> bool:
        """Whether shutdown has begun (new requests get 503)."""
        return self._closing

    def begin_shutdown(self) -> None:
        self._closing = True
        for stream in list(self._streams):
            stream.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # the SDK's session manager starts and stops
            await self._app(scope, receive, send)
            return
        if scope["type"] != "http":  # a websocket: MCP has none; refused before any check
            await send({"type": "websocket.close", "code": 1008})
            return
        headers = _headers(scope)
        try:
            token = self._check_headers(headers)
            owner = token_owner(token) if token is not None else address_owner(scope.get("client"))
            self._check_rate(owner)
            receive = await self._read_body(headers, receive)
        except Refusal as refusal:
            await refusal.send(send)
            return
        scope[OWNER_SCOPE_KEY] = owner
        if scope["method"] == "GET":  # a listening stream: it waits for messages, takes no turn
            await self._serve(self._stream, scope, receive, send, owner)
            return
        turn = self.gate.turn(owner)
        await self.gate.acquire(turn)
        scope[TURN_SCOPE_KEY] = turn

        async def answering(message: Message) -> None:
            if message["type"] == "http.response.body":  # done, or its answer streams:
                turn.give_back()  # a client that does not read it cannot hold the turn
            await send(message)

        try:
            await self._serve(self._app, scope, receive, answering, owner)
        finally:
            turn.give_back()

    async def _serve(
        self, app: ASGIApp, scope: Scope, receive: Receive, send: Send, owner: str
    ) -> None:
        try:
            await self.sessions.serve(app, scope, receive, send, owner)
        except TooManySessions as refused:
            retry = [("retry-after", str(refused.retry_after))]
            await Refusal(429, str(refused), retry).send(send)

    # --- checks ------------------------------------------------------------------------------

    def _check_headers(self, headers: dict[bytes, list[bytes]]) -> str | None:
        """The request's bearer token when this server has tokens (it is one of them),
        else None. Refusal for a request that fails a check."""
        if self._closing:
            raise Refusal(
                503, "the server is shutting down; try again later", [("connection", "close")]
            )
        self._check_host(headers.get(b"host", []))
        self._check_origin(headers.get(b"origin", []))
        if not self._tokens:
            return None
        return self._check_token(headers.get(b"authorization", []))

    def _check_rate(self, owner: str) -> None:
        try:
            self.rate.take(owner)
        except TooManyRequests as refused:
            raise Refusal(429, str(refused), [("retry-after", str(refused.retry_after))]) from None

    def _check_host(self, values: list[bytes]) -> None:
        if len(values) != 1:
            raise Refusal(421, f"expected one Host header naming this server ({self._shown_names})")
        host = values[0].decode("latin-1")
        name = _host_name(host)
        if name not in self._names:
            raise Refusal(
                421,
                f"Host header {host[:100]!r} does not name this server; expected one of "
                f"{self._shown_names} (taurec serve --allowed-host adds names)",
            )

    def _check_origin(self, values: list[bytes]) -> None:
        if not values:  # not a browser, or a same-origin request
            return
        origin = values[0].decode("latin-1")
        parts = urlsplit(origin) if len(values) == 1 else None
        name = _host_name(parts.netloc) if parts is not None else None
        if parts is None or parts.scheme not in ("http", "https") or name not in self._names:
            raise Refusal(
                403,
                f"Origin {origin[:100]!r} may not call this server (a web page on another site); "
                f"expected an http(s) origin on {self._shown_names}, or no Origin header",
            )

    def _check_token(self, values: list[bytes]) -> str:
        challenge = 'Bearer realm="taurec"'
        if len(values) != 1 or not values[0].lower().startswith(b"bearer "):
            raise Refusal(
                401,
                "this server requires a bearer token: send the header 'Authorization: Bearer "
                f"<token>' (taurec run --auth-token, or the {AUTH_TOKEN_ENV} environment variable)",
                [("www-authenticate", challenge)],
            )
        given = values[0][len(b"bearer ") :].strip()
        # every token is compared (no early exit), so timing tells nothing about which
        matches = [hmac.compare_digest(given, token) for token in self._tokens]
        if not any(matches):
            raise Refusal(
                401,
                "the bearer token is wrong: expected the token this server was started with, "
                "or a sealed plan's token",
                [("www-authenticate", f'{challenge}, error="invalid_token"')],
            )
        return given.decode("latin-1")

    async def _read_body(self, headers: dict[bytes, list[bytes]], receive: Receive) -> Receive:
        """Read the whole body (at most max_request_bytes) and return a `receive` that
        replays it. Refusal(413) as soon as the body is known to be too big."""
        declared = headers.get(b"content-length", [b""])[0]
        if declared.isdigit() and int(declared) > self._max_bytes:
            raise self._too_big(f"{int(declared)} bytes")
        chunks: list[bytes] = []  # joined once: no growing buffer, no extra copy
        size = 0
        replay: list[Message] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: pass that on
                replay.append(message)
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            self._bytes_read += len(chunk)
            if size > self._max_bytes:
                raise self._too_big(f"over {self._max_bytes} bytes")
            chunks.append(chunk)
            if not message.get("more_body", False):
                body = b"".join(chunks)
                replay.insert(0, {"type": "http.request", "body": body, "more_body": False})
                break
        chunks.clear()

        async def replayed() -> Message:
            # handed over, not kept: the body lives only as long as the app holds it
            return replay.pop(0) if replay else await receive()

        return replayed

    def _too_big(self, size: str) -> Refusal:
        return Refusal(
            413,
            f"the request body is {size}; this server accepts at most {self._max_bytes} bytes "
            "(taurec serve --max-request-bytes)",
            [("connection", "close")],
        )

    # --- listening streams ------------------------------------------------------------------

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A GET: the client's stream for server-initiated messages, open until it leaves.
        Ended (cleanly) by `begin_shutdown`."""
        state = {"started": False, "done": False}

        async def tracked(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["started"] = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                state["done"] = True
            await send(message)

        with anyio.CancelScope() as stream:
            self._streams.add(stream)
            try:
                await self._app(scope, receive, tracked)
            finally:
                self._streams.discard(stream)
        if not stream.cancelled_caught:
            return
        if not state["started"]:
            await Refusal(503, "the server is shutting down", [("connection", "close")]).send(send)
        elif not state["done"]:
            await send({"type": "http.response.body", "body": b"", "more_body": False})


def _headers(scope: Scope) -> dict[bytes, list[bytes]]:
    found: dict[bytes, list[bytes]] = {}
    for name, value in scope.get("headers", []):
        found.setdefault(bytes(name).lower(), []).append(bytes(value))
    return found


def _host_name(host: str) -> str | None:
    """The name in a Host header value (or an origin's netloc), lower case, IPv6 without
    brackets; None when it is not a plain host[:port]."""
    if not host or any(ch in _NOT_IN_A_HOST for ch in host):
        return None
    try:
        parts = urlsplit(f"//{host}")
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return None
    return parts.hostname
