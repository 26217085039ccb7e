"""Who may read the viewer: whoever holds the token made when it starts (as Jupyter does).

Loopback is shared by every user of the machine, so the address alone grants nothing.
`evaluator view` prints `http://127.0.0.1:PORT/?token=...`; every request must carry the
token, as that `token` query parameter, as the cookie the first tokened page sets, or as
`Authorization: token ...` (or `Bearer ...`). Anything else gets 403 and no data. A page
opened with the token in its address is sent on to the same address without it (the
cookie carries it from then on), so the token stays out of the history and the page.
"""

from __future__ import annotations

import hashlib
import secrets
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

#: The query parameter that carries the token.
PARAM = "token"


def new_token() -> str:
    """A fresh token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def cookie_name(token: str) -> str:
    """The cookie of this viewer; named after its token, so two viewers (cookies are
    shared across the ports of one host) do not overwrite each other's."""
    return "taurec-viewer-" + hashlib.sha256(token.encode()).hexdigest()[:12]


def tokened_url(base: str, token: str) -> str:
    return f"{base}?{urlencode({PARAM: token})}"


class TokenGate:
    """ASGI middleware: pass requests that carry `token`, answer the rest 403."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token
        self.cookie = cookie_name(token)

    def _matches(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), self.token.encode())

    def _from_header(self, request: Request) -> str | None:
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        return value.strip() if scheme.lower() in ("token", "bearer") else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        in_query = request.query_params.get(PARAM)
        if self._matches(in_query) and not request.url.path.startswith("/api/"):
            # a page opened from the printed address: set the cookie, drop the token
            rest = [(k, v) for k, v in parse_qsl(request.url.query) if k != PARAM]
            target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            response: Response = RedirectResponse(target, status_code=303)
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="strict", path="/")
            response.headers["Referrer-Policy"] = "no-referrer"
            await response(scope, receive, send)
            return
        given = (in_query, request.cookies.get(self.cookie), self._from_header(request))
        if not any(self._matches(g) for g in given):
            refused = PlainTextResponse(
                "403: this viewer needs the token printed by `evaluator view` "
                "(open the address it printed, with ?token=...)",
                status_code=403,
                headers={"Cache-Control": "no-store"},
            )
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)
