"""A stand-in for a CRS Arena / iEvaLM model server, written from its documented surface:

    GET  /  -> 200 "Model is running."
    POST /  {"context": [texts], "message": text} -> {"response": text}; 400 if a key is missing

and, like those Flask servers, it keeps each conversation's state in a session cookie: a
POST without the cookie starts a new session (and sets it), one with it continues that
session. Its replies come from the reference CRS's rule over the session's own history
(the `context` sent is checked, not used), so a client that lost its cookie would be
talking to a CRS that forgot the conversation. `sessions` records what each session
heard, for tests to check.
"""

from __future__ import annotations

import secrets
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from taurec.catalog.store import Catalog
from taurec.clients.agents.contestants.crs_demo import DemoCrs

COOKIE = "session"


class ArenaStandIn:
    def __init__(self, catalog: Catalog) -> None:
        self.crs = DemoCrs(catalog)
        #: session id -> the dialogue it has seen: user, CRS, user, ... (the last is the CRS's)
        self.sessions: dict[str, list[str]] = {}

    def app(self) -> Starlette:
        async def health(request: Request) -> Response:
            return PlainTextResponse("Model is running.")

        async def receive(request: Request) -> Response:
            try:
                body: Any = await request.json()
            except ValueError:
                return PlainTextResponse("Bad Request", status_code=400)
            if not isinstance(body, dict) or "context" not in body or "message" not in body:
                return PlainTextResponse("Bad Request: context and message required", 400)
            session = request.cookies.get(COOKIE)
            fresh = session not in self.sessions
            if fresh:
                session = secrets.token_hex(8)
                self.sessions[session] = []
            assert session is not None
            history = self.sessions[session]
            reply = self.crs.reply(history, str(body["message"]))
            history += [str(body["message"]), reply]
            response = JSONResponse({"response": reply})
            if fresh:
                response.set_cookie(COOKIE, session, httponly=True)
            return response

        return Starlette(
            routes=[Route("/", health, methods=["GET"]), Route("/", receive, methods=["POST"])]
        )
