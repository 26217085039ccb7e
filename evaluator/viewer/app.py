"""The viewer served on loopback: the static page, and the JSON it reads (`api/episodes`,
the list it polls; `api/episode/{key}`, one episode; `api/words`, the messages its
search looks through). Only requests addressed
to the loopback host are answered (a web page elsewhere cannot reach it by rebinding a
name of its own to 127.0.0.1), and requests for data only when they carry the viewer's
token in their Authorization header (access.py): another user of the machine reaches
loopback too."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from importlib.resources import files
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from taurec.evaluator.viewer.access import TokenGate
from taurec.evaluator.viewer.data import LogSet
from taurec.evaluator.viewer.words import EpisodeWords

LOOPBACK = "127.0.0.1"
#: The page's files, by URL name: (file in static/, media type).
STATIC = {
    "": ("index.html", "text/html; charset=utf-8"),
    "viewer.js": ("viewer.js", "text/javascript; charset=utf-8"),
    "viewer.css": ("viewer.css", "text/css; charset=utf-8"),
    "curve.js": ("curve.js", "text/javascript; charset=utf-8"),
    "runs.js": ("runs.js", "text/javascript; charset=utf-8"),
}
_NO_CACHE = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
#: The page runs its own script only, loads nothing from elsewhere and is never framed.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


def static_file(name: str) -> bytes:
    return files("taurec.evaluator.viewer").joinpath("static", name).read_bytes()


class _JSON(JSONResponse):
    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def viewer_app(logs: LogSet, token: str) -> Starlette:
    """The viewer over `logs`, answering requests that carry `token` only."""

    said = EpisodeWords(logs)

    async def page(request: Request) -> Response:
        name, media = STATIC[request.path_params.get("name", "")]
        return Response(
            static_file(name),
            media_type=media,
            headers={**_NO_CACHE, "Content-Security-Policy": CSP},
        )

    def episodes(request: Request) -> Response:
        logs.refresh()
        since = request.query_params.get("since")
        if since is not None and since == str(logs.revision):
            return _JSON({"revision": logs.revision, "unchanged": True}, headers=_NO_CACHE)
        return _JSON(logs.document(), headers=_NO_CACHE)

    def words(request: Request) -> Response:
        return _JSON(said.document(), headers=_NO_CACHE)

    def episode(request: Request) -> Response:
        doc = logs.detail(request.path_params["key"])
        if doc is None:
            return _JSON({"error": "no such episode"}, status_code=404, headers=_NO_CACHE)
        return _JSON(doc, headers=_NO_CACHE)

    routes = [
        Route("/", page),
        Route("/{name:str}", page),
        Route("/api/episodes", episodes),
        Route("/api/words", words),
        Route("/api/episode/{key:str}", episode),
    ]
    hosts = [LOOPBACK, "localhost"]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=hosts),
            Middleware(TokenGate, token=token),
        ],
    )

    async def not_found(request: Request, exc: Exception) -> Response:
        return Response("not found", status_code=404)

    app.add_exception_handler(KeyError, not_found)
    return app


def bind_loopback(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:`port` (0: any free port). OSError when taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((LOOPBACK, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    return sock


def viewer_server(logs: LogSet, token: str) -> Any:
    """A uvicorn server of the viewer (run it with `.run(sockets=[...])`)."""
    import uvicorn

    config = uvicorn.Config(viewer_app(logs, token), log_level="warning", access_log=False)
    return uvicorn.Server(config)


def serve(logs: LogSet, token: str, sock: socket.socket, on_ready: Callable[[], None]) -> None:
    """Serve the viewer on `sock` until interrupted; `on_ready` runs once it answers."""
    server = viewer_server(logs, token)

    async def started() -> None:
        while not server.started:
            await asyncio.sleep(0.05)
        on_ready()

    async def main() -> None:
        task = asyncio.create_task(started())
        await server.serve(sockets=[sock])
        task.cancel()

    asyncio.run(main())
