"""Serving an ASGI app on loopback, on a port the OS picks, in a thread of the test."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from support.hang_guard import HANG_GUARD_S

#: Seconds to wait for the server to listen (catches a hang, not a slow machine).
START_TIMEOUT = HANG_GUARD_S


@contextmanager
def serve_app(app: Any) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 (a free port, chosen by the OS); yields its base URL."""
    with serve_factory(lambda url: app) as url:
        yield url


@contextmanager
def serve_factory(make_app: Callable[[str], Any]) -> Iterator[str]:
    """Serve `make_app(base_url)` (for apps that announce their own URL) on 127.0.0.1,
    on a socket bound before the app is made; yields the base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(make_app(url), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the loopback server did not start")
        time.sleep(0.01)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=START_TIMEOUT)
        sock.close()
