"""Bounds that catch a hang, never a slow machine.

A test waits for what it needs (a file, a server, a freed page) and only gives up after
HANG_GUARD_S: on a loaded 2-core machine a step can take a hundred times its quiet time,
and slow is not hung. Speed is measured by the scripts under bench/, never asserted here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: The longest any single wait in the tests may take before it counts as a hang.
HANG_GUARD_S = 600.0


def wait_until(condition: Callable[[], bool], what: str, *, poll_s: float = 0.05) -> None:
    """Poll `condition` until it holds; AssertionError naming `what` after HANG_GUARD_S."""
    deadline = time.monotonic() + HANG_GUARD_S
    while not condition():
        assert time.monotonic() < deadline, f"still waiting after {HANG_GUARD_S:.0f} s: {what}"
        time.sleep(poll_s)


def finishes(work: Callable[[], object], what: str) -> object:
    """`work()`'s result, run on a thread of its own; AssertionError naming `what` when it
    has not returned after HANG_GUARD_S (a quadratic parser fed a hostile input of a few
    megabytes runs for hours: that is a hang, whatever the machine)."""
    done: list[object] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # re-raised in the test's thread
            failed.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive(), f"still running after {HANG_GUARD_S:.0f} s: {what}"
    if failed:
        raise failed[0]
    return done[0]
