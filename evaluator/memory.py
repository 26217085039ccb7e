"""Keeping the cyclic garbage collector out of bulk scoring."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Scoring allocates many acyclic objects (scores, verdicts; results unpickled from
    workers) while the list of scores grows; the cyclic collector would rescan all of it
    again and again (quadratic in the number of logs), so it waits until done. Anything
    that walks many scores (flagging repeats, aggregating) runs under it too."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
