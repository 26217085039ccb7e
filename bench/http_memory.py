"""Resident memory of `taurec serve --transport http` around many held 1 MB request
bodies: before, while held, and after the clients went away, for a few rounds.

    python bench/http_memory.py [N]        # N bodies at once (default 200)

Prints MB figures per round; the growth that stays after a round is what the server
kept of bodies whose requests had ended.
"""

from __future__ import annotations

import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.http_server import http_server_process

BODY = 1024 * 1024 - 4096


def held_post(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port))
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {BODY}\r\n\r\n"
    )
    s.sendall(head.encode() + b"x" * (BODY - 1))  # the last byte never comes
    return s


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as folder, http_server_process(Path(folder)) as server:
        time.sleep(1)
        base = server.rss_kib() / 1024
        print(f"{n} held bodies of 1 MB per round; resident memory before: {base:.0f} MB")
        for round_ in range(3):
            held = [held_post(server.port) for _ in range(n)]
            deadline = time.monotonic() + 120
            while server.rss_kib() / 1024 - base < 0.8 * n and time.monotonic() < deadline:
                time.sleep(0.2)
            peak = server.rss_kib() / 1024
            for s in held:
                s.close()
            time.sleep(5)
            after = server.rss_kib() / 1024
            print(
                f"round {round_}: held {peak:.0f} MB, after {after:.0f} MB "
                f"(kept {after - base:.0f} MB, {100 * (after - base) / n:.0f}% of the bodies)"
            )


if __name__ == "__main__":
    main()
