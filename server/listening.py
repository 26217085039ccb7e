"""A uvicorn server that says where it listens, once it does: the one line a person who
started it sees (uvicorn's own start-up lines are below the log level the commands set).
`taurec serve --transport http`, `taurec crs-demo` and `taurec a2a-demo` use it."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable

import uvicorn

#: Told the server's base URL (`http://HOST:PORT`, the port it bound) once it listens.
OnListening = Callable[[str], None]


class ListeningServer(uvicorn.Server):
    """uvicorn, calling `on_listening(base_url)` once its sockets are bound (never when
    start-up failed). A port of 0 is reported as the port the system chose."""

    def __init__(self, config: uvicorn.Config, on_listening: OnListening | None = None) -> None:
        super().__init__(config)
        self._on_listening = on_listening

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self._on_listening is not None:
            self._on_listening(self.base_url())

    def base_url(self) -> str:
        """`http://HOST:PORT` with the host as configured and the port actually bound."""
        port = self.config.port
        for server in getattr(self, "servers", []):
            for sock in server.sockets or ():
                port = sock.getsockname()[1]
                break
        host = self.config.host
        return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def serve_until_stopped(server: ListeningServer) -> bool:
    """Run `server` in this thread until Ctrl-C or SIGTERM (uvicorn's own handling of
    both); whether it ever started (False: start-up failed, uvicorn said why)."""
    with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C while stopping
        server.run()
    return bool(server.started)
