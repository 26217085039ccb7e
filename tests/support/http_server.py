"""`taurec serve --transport http` as a subprocess on a free loopback port, for tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from support.hang_guard import HANG_GUARD_S

SERVE = [sys.executable, "-m", "taurec.clients.cli.serve"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_kib(pid: int) -> int:
    """A live process's resident set size in KiB (VmRSS in /proc/<pid>/status; Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


@dataclass
class ServerProcess:
    """A running `taurec serve --transport http`; its stderr goes to a temporary file (a
    pipe nobody reads could fill up and stall a long-running server)."""

    proc: subprocess.Popen[bytes]
    port: int
    stderr_file: IO[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss_kib(self) -> int:
        return rss_kib(self.proc.pid)

    def stderr(self) -> str:
        self.stderr_file.seek(0)
        return self.stderr_file.read().decode(errors="replace")

    def freeze(self) -> None:
        """SIGSTOP: the server stops dead (its files stay as they are) until `thaw`."""
        os.kill(self.proc.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.proc.pid, signal.SIGCONT)

    def kill(self) -> None:
        """SIGKILL: the server gets no chance to clean up (a crash, an OOM kill)."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=HANG_GUARD_S)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


#: Fresh ports tried when the one picked was taken meanwhile (tests run in parallel).
PORT_ATTEMPTS = 5


@contextmanager
def http_server_process(log_dir: Path, *extra: str) -> Iterator[ServerProcess]:
    """Start the server, wait until its port accepts connections, yield it; stop it on
    exit (unless the test killed it). RuntimeError with the server's stderr when it does
    not come up within the hang guard."""
    with tempfile.TemporaryFile() as stderr_file:
        for _ in range(PORT_ATTEMPTS):
            server = _started(log_dir, extra, stderr_file)
            if server is not None:
                break
            stderr_file.seek(0)
            last = stderr_file.read().decode(errors="replace")
            stderr_file.seek(0)
            stderr_file.truncate()
        else:
            raise RuntimeError(f"the server found no free port in {PORT_ATTEMPTS} tries: {last!r}")
        try:
            yield server
        finally:
            server.stop()


def _started(log_dir: Path, extra: tuple[str, ...], stderr_file: IO[bytes]) -> ServerProcess | None:
    """The server, accepting connections on a free port; None when another process took
    that port between its choice and the server's bind."""
    port = free_port()
    args = ["--transport", "http", "--port", str(port), "--log-dir", str(log_dir), *extra]
    proc = subprocess.Popen([*SERVE, *args], stdout=subprocess.DEVNULL, stderr=stderr_file)
    server = ServerProcess(proc, port, stderr_file)
    deadline = time.monotonic() + HANG_GUARD_S  # a loaded machine starts slowly
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                server.kill()
                if "address already in use" in server.stderr().lower():
                    return None
                raise RuntimeError(f"the server did not start: {server.stderr()!r}") from None
            time.sleep(0.05)
            continue
        if proc.poll() is None:
            return server
        return None  # it exited, while the port answered: another process holds it


@contextmanager
def http_server(log_dir: Path, *extra: str) -> Iterator[int]:
    """Start the server (as `http_server_process`) and yield its port."""
    with http_server_process(log_dir, *extra) as server:
        yield server.port
