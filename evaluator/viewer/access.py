"""Who may read the viewer: whoever holds the token made when it starts (as Jupyter does).

Loopback is shared by every user of the machine, so the address alone grants nothing; and
a browser sends a host's cookies to every port of it, so the token never travels in a
cookie: another local user's server on another port, visited by the same browser, would
receive it. `evaluator view` prints `http://127.0.0.1:PORT/#token=...`: the token is in
the address's fragment, which a browser sends to no server. The page (static files that
hold no data: the same in every bundle) reads it from there, keeps it in the tab's
`sessionStorage`, which only pages of this very origin, port included, can read, takes
it out of the address, and sends it with each of its requests for data as
`Authorization: Bearer ...`. Every request for data (`/api/...`) must carry it in that
header (`Authorization: token ...` too, for scripts); anything else, a cookie or a query
parameter included, gets 403 and no data. No response of the viewer sets a cookie.
"""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

#: Where the printed address carries the token: its fragment, `#token=...`.
FRAGMENT_KEY = "token"
#: The paths that answer with data; the rest is the page itself.
DATA_PREFIX = "/api/"


def new_token() -> str:
    """A fresh token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def tokened_url(base: str, token: str) -> str:
    """The address `evaluator view` prints: `base` with the token in its fragment."""
    return f"{base}#{FRAGMENT_KEY}={token}"


class TokenGate:
    """ASGI middleware: requests for data (`/api/...`) pass only with `token` in their
    Authorization header; the page's own files pass (they hold no data)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    def _matches(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), self.token.encode())

    def _from_header(self, request: Request) -> str | None:
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        return value.strip() if scheme.lower() in ("token", "bearer") else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith(DATA_PREFIX):
            await self.app(scope, receive, send)
            return
        if not self._matches(self._from_header(Request(scope))):
            refused = JSONResponse(
                {
                    "error": "this viewer needs the token printed by `evaluator view`: open "
                    "the address it printed (http://127.0.0.1:PORT/#token=...), or send "
                    "'Authorization: Bearer <token>'"
                },
                status_code=403,
                headers={"Cache-Control": "no-store"},
            )
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)
