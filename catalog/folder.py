"""Catalog folders (`NAME.taurec-catalog/`): a saved, memory-mapped catalog that opens in
well under a second at a million items.

The JSON (or JSONL) catalog file stays the interchange format; a folder is the same items
saved with every index already built, for catalogs too large to parse on each start:

    manifest.json          format, version, meta, item count, the catalog's sha256 and
                           every other file's (`taurec.catalog.manifest`)
    items.jsonl            one item record per line, in row order, keys sorted
    offsets.npy            int64 byte offset of each line (and the end of the file)
    ids.npy, id_rows.npy   the ids in sorted order (UTF-8, fixed width) and their rows
    columns/*.npy          the filter columns (numbers, codes), id and title ranks
    columns/*.rows.npy ... memberships (genres, services, cast, director, language):
    columns/members.json   the rows holding each key, and each key's catalog spelling
    orders/*.npy           every filter sort order, precomputed
    search/                the BM25 matrix and vocabulary (`bm25s` save format)
    search/title_hash.npy  a stable hash of each title, for exact-title matches
    titles/                titles and people's names for finding mentions in free text
                           (`taurec.catalog.title_index`; optional: a folder without it
                           builds those tables from its items when first asked)

Arrays open with `mmap_mode="r"`: the operating system pages in what a query touches.
Items are decoded only when asked for (`taurec.catalog.records`). The manifest's sha256
is computed over the same bytes `Catalog.content_sha256` hashes for a JSON catalog, so
one content has one item digest whichever format loads it; opening a folder computes it
again and hashes every file, and refuses a folder that differs from its manifest. The
digest plans pin (`Catalog.sha256`) covers the checked manifest, so every file as well.
"""

from __future__ import annotations

import array
import itertools
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from taurec.catalog.columns import (
    MEMBERSHIPS,
    NUMERIC,
    SORT_KEYS,
    Columns,
    ColumnsBuilder,
    Membership,
)
from taurec.catalog.errors import DataError
from taurec.catalog.folder_structure import check_structure
from taurec.catalog.io import CatalogMeta
from taurec.catalog.item import Item
from taurec.catalog.manifest import (
    MANIFEST,
    RECORDS,
    check_layout,
    folder_sha256,
    read_manifest,
    verify,
    write_manifest,
)
from taurec.catalog.records import REWRITE_HINT, ItemRecords, SortedIds
from taurec.catalog.search import SearchIndex, SearchIndexBuilder
from taurec.catalog.title_index import (
    TITLES_FOLDER,
    TitledRecord,
    TitleIndexBuilder,
    title_files,
    title_index_version,
)

FOLDER_SUFFIX = ".taurec-catalog"
#: Items written (and indexed) per chunk: bounds the memory of decoded items.
CHUNK = 20_000
#: what `bm25s.BM25.save` writes for the search index, and the exact-title hashes
_SEARCH_FILES = (
    "params.index.json",
    "vocab.index.json",
    "data.csc.index.npy",
    "indices.csc.index.npy",
    "indptr.csc.index.npy",
    "title_hash.npy",
)


def is_catalog_folder(path: Path) -> bool:
    """A directory with a catalog folder manifest (the suffix is a convention only)."""
    return path.is_dir() and (path / MANIFEST).is_file()


def _order_name(key: str, descending: bool) -> str:
    return f"{key}.{'desc' if descending else 'asc'}.npy"


def expected_files() -> list[str]:
    """Every file a catalog folder holds besides its manifest, relative to the folder."""
    names = ["items.jsonl", "offsets.npy", "ids.npy", "id_rows.npy", "columns/members.json"]
    names += [f"columns/{name}.npy" for name in (*NUMERIC, "id_rank", "title_rank")]
    names += [f"columns/{name}.{part}.npy" for name in MEMBERSHIPS for part in ("rows", "starts")]
    names += [f"orders/{_order_name(key, d)}" for key in SORT_KEYS for d in (False, True)]
    return names + [f"search/{name}" for name in _SEARCH_FILES]


def write_catalog_folder(path: str | Path, meta: CatalogMeta, items: Iterable[Item]) -> Path:
    """Write `items` (streamed, a chunk at a time) and their indexes as a catalog folder.

    Atomic: the folder is built beside `path` and renamed into place, replacing an older
    catalog folder there. Duplicate ids or no items raise DataError and write nothing.
    """
    path = Path(path)
    if path.exists() and not is_catalog_folder(path):
        raise DataError("exists and is not a catalog folder; expected a new path", source=path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
    try:
        _write(tmp, meta, items, source=path)
        os.chmod(tmp, 0o755)  # mkdtemp makes 0700 folders; a catalog is ordinary readable data
        if path.exists():
            old = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".old"))
            os.replace(path, old / "catalog")
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def _write(folder: Path, meta: CatalogMeta, items: Iterable[Item], *, source: Path) -> None:
    columns = ColumnsBuilder()
    search = SearchIndexBuilder()
    offsets = array.array("q", [0])
    at = 0
    with open(folder / "items.jsonl", "wb") as fh:
        it = iter(items)
        while chunk := list(itertools.islice(it, CHUNK)):
            lines = [record_line(item) for item in chunk]
            for line in lines:
                at += len(line)
                offsets.append(at)
            fh.writelines(lines)
            columns.add(chunk)
            search.add(chunk)
            del chunk, lines
    n = columns.n
    if n == 0:
        raise DataError("holds no items; expected at least one", source=source)
    offset_arr = np.frombuffer(offsets, dtype=np.int64)
    np.save(folder / "offsets.npy", offset_arr)
    # Each index is saved and dropped before the next is built, to keep the peak low.
    ids = columns.ids
    cols = columns.finish()
    del columns
    id_rows = np.empty(n, dtype=np.int64)
    id_rows[cols.id_rank] = np.arange(n)
    np.save(folder / "ids.npy", _sorted_ids(ids, id_rows, source))
    del ids
    np.save(folder / "id_rows.npy", id_rows)
    _save_columns(folder, cols)
    del cols
    retriever, title_hashes = search.finish()
    del search
    retriever.save(folder / "search", show_progress=False)
    del retriever
    np.save(folder / "search" / "title_hash.npy", title_hashes)
    del title_hashes
    _write_titles(folder)
    del offset_arr, id_rows
    written = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
    write_manifest(folder, n, meta, [name for name in written if name != RECORDS])


def _write_titles(folder: Path) -> None:
    """The title index, built last from the written records: its Python strings would
    otherwise sit beside the search index's while that is built, raising the peak."""
    titles = TitleIndexBuilder()
    with open(folder / "items.jsonl", "rb") as fh:
        while lines := list(itertools.islice(fh, CHUNK)):
            titles.add([TitledRecord.of_line(line) for line in lines])
    titles.save(folder)


def record_line(item: Item) -> bytes:
    """An item's line in items.jsonl: `item_record(item)` as sorted-key JSON, plus a newline.

    orjson writes the field values held on an `Item` (str, int, float, bool, date, the
    ContentRating enum, lists of str) exactly as `item_record`'s JSON mode does, so the
    fields are dumped directly: this is the hot loop of writing a folder.
    """
    return orjson.dumps(item.__dict__, option=orjson.OPT_SORT_KEYS) + b"\n"


def _sorted_ids(
    ids: list[str], id_rows: npt.NDArray[np.int64], source: Path
) -> npt.NDArray[np.bytes_]:
    encoded = [ids[r].encode() for r in id_rows.tolist()]
    for a, b in itertools.pairwise(encoded):
        if a == b:
            first = ids.index(a.decode())
            raise DataError(
                f"duplicate id (first seen as item #{first}); expected unique ids",
                source=source,
                record=f"item {a.decode()!r}",
                field="id",
            )
    for key in encoded:
        if key.endswith(b"\0"):
            raise DataError("id ends in a NUL character; expected printable ids", source=source)
    return np.asarray(encoded, dtype=np.bytes_)


def _save_columns(folder: Path, cols: Columns) -> None:
    out = folder / "columns"
    out.mkdir()
    for name, values in cols.numeric.items():
        np.save(out / f"{name}.npy", values)
    np.save(out / "id_rank.npy", cols.id_rank)
    np.save(out / "title_rank.npy", cols.title_rank)
    labels: dict[str, dict[str, list[str]]] = {}
    for name, member in cols.members.items():
        rows, starts = member.arrays
        np.save(out / f"{name}.rows.npy", rows.astype(np.int32 if cols.n < 2**31 else np.int64))
        np.save(out / f"{name}.starts.npy", starts.astype(np.int64))
        labels[name] = {"keys": member.keys, "labels": member.labels}
    (out / "members.json").write_bytes(orjson.dumps(labels))
    orders = folder / "orders"
    orders.mkdir()
    small = np.int32 if cols.n < 2**31 else np.int64
    for (key, descending), order in cols.all_orders().items():
        np.save(orders / _order_name(key, descending), order.astype(small))


class CatalogFolder:
    """An opened catalog folder: meta, lazily read items, and loaders for the indexes."""

    def __init__(self, path: Path) -> None:
        """Check the folder against its manifest (see `taurec.catalog.manifest`); any
        difference is one DataError naming the file, raised before anything is served."""
        self.path = path
        manifest = read_manifest(path)
        self.meta = manifest.meta
        self.n = manifest.items
        names = self._files()
        missing = [name for name in [RECORDS, *names] if not (path / name).is_file()]
        if missing:
            more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            raise DataError(
                f"is missing {', '.join(missing[:3])}{more}; {REWRITE_HINT}",
                source=path,
            )
        offsets = self._array("offsets.npy")
        if offsets.ndim != 1 or offsets.dtype.kind not in "iu" or len(offsets) < 2:
            raise DataError(f"offsets.npy holds no line offsets; {REWRITE_HINT}", source=path)
        size = (path / RECORDS).stat().st_size
        if int(offsets[-1]) != size:
            raise DataError(
                f"{RECORDS} holds {size} bytes but offsets.npy says {int(offsets[-1])}; "
                f"{REWRITE_HINT}",
                source=path,
            )
        if len(offsets) - 1 != self.n:
            raise DataError(
                f"holds {len(offsets) - 1} records but its manifest says {self.n}; {REWRITE_HINT}",
                source=path,
            )
        ids, id_rows = self._array("ids.npy"), self._array("id_rows.npy")
        check_layout(path, self.n, offsets, id_rows, ids)

        def structure() -> None:  # every file fits the others, whatever the manifest says
            check_structure(path, self.n, offsets, ids, id_rows)

        verify(path, manifest, names, offsets, id_rows, meanwhile=structure)
        #: the item digest, equal to the one just recomputed from the records
        self.content_sha256: str = manifest.sha256
        #: the digest plans pin: the checked manifest, so it covers every file read
        self.sha256: str = folder_sha256(manifest, names)
        self.items = ItemRecords(path / RECORDS, offsets)
        self.rows = SortedIds(ids, id_rows)

    def _files(self) -> list[str]:
        """Every file to hash: the indexes, and the title index when there is one (without
        it, its tables are built from the verified items, so the answers are the same)."""
        names = [name for name in expected_files() if name != RECORDS]
        if (self.path / TITLES_FOLDER).is_dir():
            names += title_files(title_index_version(self.path))
        return names

    def _array(self, name: str) -> Any:
        try:
            return np.load(self.path / name, mmap_mode="r")
        except OSError as exc:
            raise DataError(
                f"cannot read {name} ({exc}); {REWRITE_HINT}", source=self.path
            ) from None
        except ValueError:  # numpy's own words for a file that is no array are misleading
            raise DataError(
                f"{name} is not a numpy array; {REWRITE_HINT}", source=self.path
            ) from None

    def columns(self) -> Columns:
        col = "columns/"
        numeric = {name: self._array(f"{col}{name}.npy") for name in NUMERIC}
        labels = orjson.loads((self.path / "columns" / "members.json").read_bytes())
        members = {
            name: Membership(
                key,
                labels[name]["keys"],
                labels[name]["labels"],
                self._array(f"{col}{name}.rows.npy"),
                self._array(f"{col}{name}.starts.npy"),
            )
            for name, (key, _) in MEMBERSHIPS.items()
        }
        orders = {
            (key, d): self._array(f"orders/{_order_name(key, d)}")
            for key in SORT_KEYS
            for d in (False, True)
        }
        return Columns(
            self.n,
            numeric,
            members,
            self._array(f"{col}id_rank.npy"),
            self._array(f"{col}title_rank.npy"),
            orders,
        )

    def search_index(self, items: ItemRecords, columns: Columns) -> SearchIndex:
        import bm25s

        retriever = bm25s.BM25.load(self.path / "search", mmap=True, show_progress=False)
        title_hashes = self._array("search/title_hash.npy")
        return SearchIndex(items, columns.id_rank, retriever, title_hashes)

    def ids(self, columns: Columns) -> list[str]:
        return self.rows.in_row_order(columns.id_rank)
