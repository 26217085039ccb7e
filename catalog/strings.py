"""Saved string columns: many strings in one UTF-8 file, read through a memory map.

A column is `NAME.bin` (the strings' bytes, back to back) and `NAME.offsets.npy` (int64,
where each string starts, then the end). Opening one reads neither file; string `i` is
decoded when asked for. A column whose strings were saved in sorted order also answers
"where is this string?" by binary search, so a set of a million names needs no Python set.
"""

from __future__ import annotations

import bisect
import itertools
import mmap
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from taurec.catalog.indexed import IndexedSequence


def save_strings(folder: Path, name: str, strings: Iterable[str]) -> None:
    """Write `strings` (in the given order) as the column `name` in `folder`."""
    encoded = [s.encode() for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    if encoded:
        np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)), out=offsets[1:])
    (folder / f"{name}.bin").write_bytes(b"".join(encoded))
    np.save(folder / f"{name}.offsets.npy", offsets)


class StringColumn(IndexedSequence[str]):
    """The saved column `name` in `folder`: `column[i]` is string `i`, decoded on demand.
    ValueError when its two files do not fit together (a damaged or truncated column)."""

    element, elements = "string", "strings"

    def __init__(self, folder: Path, name: str) -> None:
        self._offsets: npt.NDArray[np.int64] = np.load(
            folder / f"{name}.offsets.npy", mmap_mode="r"
        )
        offsets = self._offsets
        if offsets.ndim != 1 or len(offsets) == 0 or offsets.dtype != np.int64:
            raise ValueError(f"{name}.offsets.npy is not a list of int64 offsets")
        self._n = len(offsets) - 1
        with open(folder / f"{name}.bin", "rb") as fh:
            size = int(offsets[-1])
            held = os.fstat(fh.fileno()).st_size
            if held != size or int(offsets[0]) != 0:
                raise ValueError(f"{name}.bin holds {held:,} bytes, but its offsets span {size:,}")
            self._map: mmap.mmap | bytes = (
                mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
            )
        self._raw = _RawView(self)

    def __len__(self) -> int:
        return self._n

    def raw(self, i: int) -> bytes:
        return self._map[int(self._offsets[i]) : int(self._offsets[i + 1])]

    def _at(self, i: int) -> str:
        return self.raw(i).decode()

    def all(self) -> list[str]:
        """Every string, in order (one decode of the whole file)."""
        text = self._map[:].decode()
        starts = self._offsets.tolist()
        if len(text) == len(self._map):  # ASCII: byte offsets are character offsets
            return [text[a:b] for a, b in itertools.pairwise(starts)]
        return [self.raw(i).decode() for i in range(self._n)]

    def position(self, key: str) -> int | None:
        """Where `key` is in a column saved in sorted order, or None."""
        raw = key.encode()
        at = bisect.bisect_left(self._raw, raw)
        return at if at < self._n and self.raw(at) == raw else None

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.position(key) is not None


class _RawView(IndexedSequence[bytes]):
    """The column's strings as bytes, for `bisect` (UTF-8 byte order is code point order)."""

    element, elements = "string", "strings"

    def __init__(self, column: StringColumn) -> None:
        self._column = column

    def __len__(self) -> int:
        return len(self._column)

    def _at(self, i: int) -> bytes:
        return self._column.raw(i)
