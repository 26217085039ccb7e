"""Reading what a child process says, without hanging a test when it says nothing."""

from __future__ import annotations

import os
import selectors
import time


def first_line(fd: int, timeout: float) -> str:
    """The first line written to `fd` within `timeout` seconds, without its newline ("" when
    none came, or the writer closed it first)."""
    got = b""
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while b"\n" not in got and time.monotonic() < deadline:
            if sel.select(timeout=0.2):
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                got += chunk
    return got.decode(errors="replace").split("\n")[0]
