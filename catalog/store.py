"""The catalog store: items by id, in file order, with the indexes search and filter need.

A `Catalog` is immutable once built. Loaded from a JSON file, its indexes (columns, the
BM25 index, sort orders) are built on first use and cached on the instance, so loading
stays cheap for callers that only look items up. Opened from a catalog folder
(`taurec.catalog.folder`), every index is read from memory-mapped files and items are
decoded one at a time when asked for; both give the same answers to every query.
"""

from __future__ import annotations

import hashlib
import importlib.resources
from collections.abc import Iterable, Iterator, Sequence
from functools import cached_property
from pathlib import Path

import orjson

from taurec.catalog.availability import Availability, availability
from taurec.catalog.columns import Columns
from taurec.catalog.errors import DataError
from taurec.catalog.filter import FilterPage, FilterSpec, RowLookup, run_filter
from taurec.catalog.folder import CatalogFolder
from taurec.catalog.io import CatalogMeta, item_record, read_catalog_file
from taurec.catalog.item import Item
from taurec.catalog.search import SearchHit, SearchIndex
from taurec.catalog.spec import BUILTIN


def builtin_path() -> Path:
    """The catalog file shipped with the package (`catalog/data/builtin.json`)."""
    return Path(str(importlib.resources.files("taurec.catalog") / "data" / "builtin.json"))


class Catalog:
    """A typed movie catalog: lookup, BM25 search, structured filter, availability."""

    def __init__(self, items: list[Item], meta: CatalogMeta, *, source: str = "<items>") -> None:
        if not items:
            raise DataError("holds no items; expected at least one", source=source)
        by_id: dict[str, int] = {}
        for n, item in enumerate(items):
            first = by_id.setdefault(item.id, n)
            if first != n:
                raise DataError(
                    f"duplicate id (first seen as item #{first}); expected unique ids",
                    source=source,
                    record=f"item {item.id!r}",
                    field="id",
                )
        self._items: Sequence[Item] = items
        self._row: RowLookup = by_id
        self._folder: CatalogFolder | None = None
        self.meta = meta

    @classmethod
    def from_items(cls, items: Iterable[Item], meta: CatalogMeta | None = None) -> Catalog:
        """Build from items in memory; duplicate ids or no items raise DataError."""
        return cls(list(items), meta or CatalogMeta())

    @classmethod
    def load(cls, spec: str | Path) -> Catalog:
        """Load `"builtin"` (the shipped snapshot), a catalog file (JSON or JSONL) or a
        catalog folder (opened lazily, see `taurec.catalog.folder`)."""
        path = builtin_path() if str(spec) == BUILTIN else Path(spec)
        if path.is_dir():  # a folder without a manifest is named as such when opened
            return cls.open_folder(path)
        meta, items = read_catalog_file(path)
        return cls(items, meta, source=str(path))

    @classmethod
    def open_folder(cls, path: str | Path) -> Catalog:
        """Open a catalog folder: nothing is decoded or indexed until a query needs it."""
        folder = CatalogFolder(Path(path))
        cat = cls.__new__(cls)
        cat._items = folder.items
        cat._row = folder.rows
        cat._folder = folder
        cat.meta = folder.meta
        return cat

    # --- lookup -------------------------------------------------------------------------

    @property
    def items(self) -> Sequence[Item]:
        """All items in file order (do not mutate it). From a catalog folder it is a lazy
        sequence: each item is decoded when indexed, so iterate it only when you must."""
        return self._items

    @cached_property
    def ids(self) -> list[str]:
        """All item ids in file order."""
        if self._folder is not None:
            return self._folder.ids(self.columns)
        return [it.id for it in self._items]

    def get(self, item_id: str) -> Item | None:
        row = self._row.get(item_id)
        return None if row is None else self._items[row]

    def row(self, item_id: str) -> int | None:
        """Position of `item_id` in `items` (and in every column), or None."""
        return self._row.get(item_id)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._row

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self._items)

    def __repr__(self) -> str:
        return f"Catalog({self.meta.name!r}, {len(self)} items)"

    # --- summaries ----------------------------------------------------------------------

    def sha256(self) -> str:
        """The digest plans pin, episode logs record and the evaluator compares for drift.

        From a catalog file or items in memory it is `content_sha256()`: the server builds
        every index from those items. From a catalog folder it is the folder's digest,
        which also covers its meta and every index file the server reads
        (`taurec.catalog.manifest.folder_sha256`), so a folder whose index was edited
        together with its manifest does not pass for the one a plan was made against.
        """
        return self._folder.sha256 if self._folder is not None else self._sha256

    def content_sha256(self) -> str:
        """Hex digest of the item content, independent of the form, file order and `meta`:
        two catalogs with equal digests hold the same items with the same field values."""
        return self._folder.content_sha256 if self._folder is not None else self._sha256

    @cached_property
    def _sha256(self) -> str:
        h = hashlib.sha256()
        for item in sorted(self._items, key=lambda it: it.id):
            h.update(orjson.dumps(item_record(item), option=orjson.OPT_SORT_KEYS))
            h.update(b"\n")
        return h.hexdigest()

    def services(self) -> list[str]:
        """Sorted canonical names of the services that stream at least one item."""
        return sorted(self.columns.services.labels)

    def genres(self) -> list[str]:
        """Sorted genre names (catalog spelling) that at least one item has."""
        return sorted(self.columns.genres.labels)

    # --- indexes and queries ------------------------------------------------------------

    @cached_property
    def columns(self) -> Columns:
        """Columnar arrays over `items` (built on first use, or mapped from a folder)."""
        if self._folder is not None:
            return self._folder.columns()
        return Columns.of(self._items)

    @cached_property
    def search_index(self) -> SearchIndex:
        """The BM25 index (built on first use, the slowest index to build; or mapped)."""
        if self._folder is not None:
            return self._folder.search_index(self._folder.items, self.columns)
        return SearchIndex.build(self._items, self.columns)

    def search(self, query: str, limit: int = 10, offset: int = 0) -> list[SearchHit]:
        """Ranked BM25 hits for `query`; see `taurec.catalog.search` for the ranking rules."""
        return self.search_index.search(query, limit=limit, offset=offset)

    def filter(self, spec: FilterSpec) -> FilterPage:
        """One page of items matching every predicate in `spec`."""
        return run_filter(self._items, self.columns, spec, self._row)

    def availability(self, item_id: str, services: list[str]) -> Availability:
        """Whether `item_id` streams on any of the user's `services` (raises UnknownItem)."""
        return availability(self.get(item_id), item_id, services)
