"""Giving freed request memory back to the operating system.

glibc's malloc serves a block of 128 KiB or more with its own mmap, returned on free,
but after the first such block is freed it raises that threshold (up to 32 MiB) so later
blocks come from the heap, which only shrinks from its top. A server that took hundreds
of 1 MB request bodies at once would then keep their memory for good. Fixing the
threshold (which turns that adjustment off) makes every large body a mapping of its own,
unmapped as soon as the request is done; `trim` gives back free heap pages in between.
Elsewhere than glibc both do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from functools import cache
from typing import Final

log = logging.getLogger(__name__)

_M_TRIM_THRESHOLD: Final = -1
_M_MMAP_THRESHOLD: Final = -3
#: Blocks this big or bigger get a mapping of their own (glibc's initial default).
MMAP_THRESHOLD: Final = 128 * 1024


@cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        if libc is None or not hasattr(libc, "mallopt") or not hasattr(libc, "malloc_trim"):
            return None
    except OSError:
        return None
    return libc


def return_large_blocks() -> bool:
    """Fix malloc's mmap threshold at MMAP_THRESHOLD for this process. Whether it could."""
    libc = _libc()
    if libc is None:
        return False
    done = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        libc.mallopt(_M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD)
    )
    if not done:  # pragma: no cover - glibc accepts both values
        log.warning("malloc refused a fixed mmap threshold; large bodies may stay resident")
    return done


def trim() -> None:
    """Return free heap pages to the operating system (glibc's malloc_trim)."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
