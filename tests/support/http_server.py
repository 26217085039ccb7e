"""`taurec serve --transport http` as a subprocess on a free loopback port, for tests."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SERVE = [sys.executable, "-m", "taurec.clients.serve_cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(log_dir: Path, *extra: str) -> Iterator[int]:
    """Start the server, wait until its port accepts connections, yield the port; stop it
    on exit. RuntimeError with the server's stderr when it does not come up in 30 s."""
    port = free_port()
    args = ["--transport", "http", "--port", str(port), "--log-dir", str(log_dir), *extra]
    proc = subprocess.Popen([*SERVE, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                _, stderr = proc.communicate()
                raise RuntimeError(f"the server did not start: {stderr!r}") from None
            time.sleep(0.05)
    try:
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)
