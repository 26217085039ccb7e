"""Items read lazily from a catalog folder: one JSON record per line, found by byte offset.

`ItemRecords` is a read-only sequence of `Item`s over `items.jsonl` and `offsets.npy`;
indexing decodes (and validates) only the record asked for, so a million-item catalog
opens without reading its items. `SortedIds` finds an item's row by binary search in the
ids saved in sorted order, so no id dictionary is built either.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path

import numpy as np
import numpy.typing as npt
import orjson
from pydantic import ValidationError

from taurec.catalog.errors import REWRITE_HINT, DataError, from_validation_error
from taurec.catalog.indexed import IndexedSequence
from taurec.catalog.item import Item
from taurec.catalog.title_index import SavedTitles, open_saved_titles

__all__ = ["REWRITE_HINT", "ItemRecords", "SortedIds"]


class ItemRecords(IndexedSequence[Item]):
    """Row `i` is the item on line `i` of `path` (bytes `offsets[i]` to `offsets[i + 1]`)."""

    element, elements = "row", "items"

    def __init__(self, path: Path, offsets: npt.NDArray[np.int64]) -> None:
        self._path = path
        self._offsets = offsets
        self._n = len(offsets) - 1
        with open(path, "rb") as fh:
            size = int(offsets[-1])
            self._map: mmap.mmap | bytes = (
                mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
            )

    def __len__(self) -> int:
        return self._n

    @cached_property
    def saved_titles(self) -> SavedTitles | None:
        """The folder's saved title index (None for a folder written without one)."""
        return open_saved_titles(self._path.parent)

    def line(self, row: int) -> bytes:
        """The raw record of `row` (its JSON line, newline included)."""
        return self._map[int(self._offsets[row]) : int(self._offsets[row + 1])]

    def _at(self, i: int) -> Item:
        return self._decode(i)

    def __iter__(self) -> Iterator[Item]:
        for row in range(self._n):
            yield self._decode(row)

    def _decode(self, row: int) -> Item:
        try:
            return Item.model_validate(orjson.loads(self.line(row)))
        except orjson.JSONDecodeError as exc:  # a folder damaged after it was written
            raise DataError(
                f"line {row + 1} is not a JSON record ({exc}); {REWRITE_HINT}",
                source=self._path,
            ) from None
        except ValidationError as exc:
            raise from_validation_error(exc, source=self._path, record=f"line {row + 1}") from None


class SortedIds:
    """Row lookup by id over ids saved in sorted order (UTF-8 bytes, fixed width)."""

    def __init__(self, ids: npt.NDArray[np.bytes_], rows: npt.NDArray[np.int64]) -> None:
        self._ids = ids
        self._rows = rows
        self._width = ids.dtype.itemsize

    def get(self, item_id: str, default: int | None = None) -> int | None:
        if not isinstance(item_id, str):
            return default
        key = item_id.encode()
        # A key longer than the widest id, or ending in NUL (which fixed-width bytes drop),
        # is not a saved id.
        if len(key) > self._width or key.endswith(b"\0") or not key:
            return default
        at = int(np.searchsorted(self._ids, key))
        if at < len(self._ids) and self._ids[at] == key:
            return int(self._rows[at])
        return default

    def __contains__(self, item_id: object) -> bool:
        return isinstance(item_id, str) and self.get(item_id) is not None

    def in_row_order(self, id_rank: npt.NDArray[np.integer]) -> list[str]:
        """Every id, row by row (row `r`'s id is at sorted position `id_rank[r]`)."""
        return [b.decode() for b in self._ids[id_rank].tolist()]
