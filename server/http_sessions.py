"""Stateful MCP sessions over HTTP, counted per client, so that no client can fill the
MCP SDK's session table and lock every other client out.

The SDK (Streamable HTTP, stateful mode) opens a session for each request that has no
`mcp-session-id` header and takes the handshake path (no `mcp-protocol-version` header,
or a handshake-era one): an `initialize`. It holds at most `max_sessions` of them (then
every client's handshake gets 503) and closes one after `idle_seconds` without a
request in flight. The HTTP guard passes every request through `SessionTable.serve`,
which keeps, per client (its owner, see raw_calls.owner_of), the sessions the SDK opened
for it:

- an opening from a client that already holds `max_per_client` (openings in flight
  included) is refused before it reaches the SDK (`TooManySessions`; the guard answers
  429);
- a session is counted from the `mcp-session-id` of the SDK's successful answer;
- it is forgotten when the SDK answers 404 for it (ended or expired), when a DELETE of it
  succeeds, and once it had no request in flight for `idle_seconds` (the SDK closes it
  then too);
- a live session the table does not know (forgotten a moment before the SDK closed it)
  counts again, for the client that uses it;
- once the server holds `max_sessions` (sessions and openings in flight), an opening from
  a client holding h crowds out the least recently used idle session of a client holding
  at least h + 2: the table ends it in the SDK (a DELETE of it, made by the table), so its
  next request gets 404 and its client initializes again. A client is its address, and
  any local user can send from anywhere in 127.0.0.0/8: spread over a hundred addresses
  within the per-client limit, one user filled the table, and every other client's
  handshake got 503. Now the clients holding the most give up their idle sessions first,
  and a client holding few always gets one.

Sessionless requests (the SDK's default protocol: a newer `mcp-protocol-version`) open
nothing and pass untouched.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field, model_validator

from taurec.server.defaults import MAX_SESSIONS, MAX_SESSIONS_PER_CLIENT, SESSION_IDLE_SECONDS

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Clock = Callable[[], float]

SESSION_HEADER: Final = b"mcp-session-id"
VERSION_HEADER: Final = b"mcp-protocol-version"

log = logging.getLogger(__name__)


class SessionLimits(BaseModel):
    """The stateful sessions the HTTP server holds (HttpSettings.sessions)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_sessions: int = Field(
        default=MAX_SESSIONS,
        ge=2,
        le=1_000_000,
        description="Sessions held at once, all clients together (the SDK's cap); beyond "
        "it a new one gets 503. Sessionless requests hold none.",
    )
    max_per_client: int = Field(
        default=MAX_SESSIONS_PER_CLIENT,
        ge=1,
        le=100_000,
        description="Sessions one client (its known bearer token, else its address) may "
        "hold at once; beyond it a new one gets 429. Below max_sessions, so one client "
        "cannot fill the table.",
    )
    idle_seconds: float = Field(
        default=SESSION_IDLE_SECONDS,
        gt=0,
        le=24 * 3600,
        description="A session with no request in flight for this long is closed and "
        "forgotten (its id then answers 404; the client initializes again).",
    )

    @model_validator(mode="after")
    def _one_client_cannot_fill_the_table(self) -> SessionLimits:
        if self.max_per_client >= self.max_sessions:
            raise ValueError(
                f"max sessions per client ({self.max_per_client}) must be below max sessions "
                f"({self.max_sessions}), so that one client cannot hold them all"
            )
        return self


class TooManySessions(Exception):
    """A client asked for one more session than it may hold; the message names the limit
    and what to do. `retry_after`: seconds until one of its sessions may expire."""

    def __init__(self, limit: int, idle_seconds: float, retry_after: int) -> None:
        super().__init__(
            f"this client already holds {limit} MCP sessions, this server's limit per client "
            "(taurec serve --max-sessions-per-client; a client is its bearer token, or without "
            "one its address): end one (HTTP DELETE with its mcp-session-id) or reuse one; a "
            f"session with no request for {idle_seconds:g} s is closed "
            "(--session-idle-timeout)"
        )
        self.retry_after = retry_after


@dataclass
class _Session:
    owner: str
    in_flight: int  # requests of this session being served (an open GET stream too)
    last: float  # when a request of it last started or ended


class SessionTable:
    """The stateful sessions each client holds (see the module docstring)."""

    def __init__(
        self,
        max_per_client: int,
        idle_seconds: float,
        clock: Clock = time.monotonic,
        max_sessions: int | None = None,
    ) -> None:
        """`max_sessions`: the SDK's cap, at which a client holding few crowds out a
        session of a client holding many (None: never)."""
        self.max_per_client = max_per_client
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._sessions: dict[str, _Session] = {}
        self._held: Counter[str] = Counter()  # owner -> its sessions and openings in flight

    @property
    def count(self) -> int:
        """Sessions known now (forgetting idle ones first)."""
        self.forget_idle()
        return len(self._sessions)

    def held_by(self, owner: str) -> int:
        """Sessions (and openings in flight) of `owner`, idle ones forgotten first."""
        self.forget_idle()
        return self._held[owner]

    def forget_idle(self) -> int:
        """Forget the sessions with no request in flight for `idle_seconds`; how many."""
        now = self._clock()
        idle = [
            sid
            for sid, s in self._sessions.items()
            if s.in_flight == 0 and now - s.last >= self.idle_seconds
        ]
        for sid in idle:
            self._forget(sid)
        if idle:
            log.info("forgot %d idle MCP sessions", len(idle))
        return len(idle)

    async def serve(
        self, app: ASGIApp, scope: Scope, receive: Receive, send: Send, owner: str
    ) -> None:
        """Serve one HTTP request of `owner` with `app` (the SDK's), keeping count.
        TooManySessions (before `app` is called) for an opening over the client's limit."""
        headers = scope.get("headers", [])
        version = _header(headers, VERSION_HEADER)
        session_id = _header(headers, SESSION_HEADER)
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            await app(scope, receive, send)  # sessionless (the SDK routes it the same way)
        elif session_id is not None:
            await self._serve_in_session(app, scope, receive, send, owner, session_id)
        else:
            await self._serve_opening(app, scope, receive, send, owner)

    async def _serve_opening(
        self, app: ASGIApp, scope: Scope, receive: Receive, send: Send, owner: str
    ) -> None:
        self.forget_idle()
        if self._held[owner] >= self.max_per_client:
            log.info("refused a new MCP session: %s holds %d", owner, self._held[owner])
            raise TooManySessions(self.max_per_client, self.idle_seconds, self._retry_after(owner))
        if self.max_sessions is not None and sum(self._held.values()) >= self.max_sessions:
            crowded = self._crowded_out(owner)
            if crowded is not None:
                await self._end_in_sdk(app, scope, crowded)
        self._held[owner] += 1  # the opening's place, which its session takes over
        opened: list[_Session] = []

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start" and not opened:
                sid = _header(message.get("headers", []), SESSION_HEADER)
                if message["status"] < 400 and sid is not None and sid not in self._sessions:
                    session = _Session(owner, in_flight=1, last=self._clock())
                    self._sessions[sid] = session  # counted before the client learns its id
                    opened.append(session)
            await send(message)

        try:
            await app(scope, receive, watched)
        finally:
            if opened:
                self._request_ended(opened[0])
            else:
                self._release(owner)

    async def _serve_in_session(
        self, app: ASGIApp, scope: Scope, receive: Receive, send: Send, owner: str, sid: str
    ) -> None:
        session = self._sessions.get(sid)
        if session is not None:
            session.in_flight += 1
            session.last = self._clock()
        status: list[int] = []

        async def watched(message: Message) -> None:
            nonlocal session
            if message["type"] == "http.response.start" and not status:
                status.append(message["status"])
                if session is None and message["status"] < 400 and sid not in self._sessions:
                    session = _Session(owner, in_flight=1, last=self._clock())
                    self._sessions[sid] = session  # alive in the SDK: it counts again
                    self._held[owner] += 1
            await send(message)

        try:
            await app(scope, receive, watched)
        finally:
            if session is not None:
                self._request_ended(session)
                answered = status[0] if status else None
                ended = answered == 404 or (
                    scope.get("method") == "DELETE" and answered is not None and answered < 400
                )
                if ended and self._sessions.get(sid) is session:
                    self._forget(sid)

    def _crowded_out(self, owner: str) -> str | None:
        """The idle session an opening of `owner` may take the place of on a full table:
        the least recently used of a client holding at least two more (None: there is
        none)."""
        floor = self._held[owner] + 2
        idle = [
            (s.last, sid)
            for sid, s in self._sessions.items()
            if s.in_flight == 0 and self._held[s.owner] >= floor
        ]
        return min(idle)[1] if idle else None

    async def _end_in_sdk(self, app: ASGIApp, like: Scope, sid: str) -> None:
        """End session `sid` in the SDK as its client's DELETE would, and forget it."""
        session = self._sessions[sid]
        log.warning("ended MCP session of %s to make room on a full server", session.owner)
        self._forget(sid)
        host = _header(like.get("headers", []), b"host") or "127.0.0.1"
        scope = {
            **{k: like[k] for k in ("http_version", "scheme", "server", "root_path") if k in like},
            "type": "http",
            "method": "DELETE",
            "path": like.get("path", "/mcp"),
            "raw_path": like.get("raw_path", b"/mcp"),
            "query_string": b"",
            "headers": [(b"host", host.encode("latin-1")), (SESSION_HEADER, sid.encode())],
            "client": like.get("client"),
        }

        async def nothing_more() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def dropped(message: Message) -> None:
            pass

        try:
            await app(scope, nothing_more, dropped)
        except Exception:  # the session is forgotten either way; the SDK closes it when idle
            log.exception("could not end MCP session %s", sid[:8])

    def _request_ended(self, session: _Session) -> None:
        session.in_flight -= 1
        session.last = self._clock()

    def _forget(self, sid: str) -> None:
        session = self._sessions.pop(sid)
        self._release(session.owner)

    def _release(self, owner: str) -> None:
        self._held[owner] -= 1
        if self._held[owner] <= 0:
            del self._held[owner]

    def _retry_after(self, owner: str) -> int:
        """Whole seconds until the first of `owner`'s idle sessions expires (at least 1)."""
        now = self._clock()
        left = [
            self.idle_seconds - (now - s.last)
            for s in self._sessions.values()
            if s.owner == owner and s.in_flight == 0
        ]
        return max(1, math.ceil(min(left, default=self.idle_seconds)))


def _header(headers: Any, name: bytes) -> str | None:
    for key, value in headers:
        if bytes(key).lower() == name:
            return bytes(value).decode("latin-1")
    return None
