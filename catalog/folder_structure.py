"""A catalog folder checked against its own structure when it opens, whatever its manifest
says: a folder whose files were damaged and whose manifest was then written again to match
them passes every hash, so the hashes alone cannot refuse it.

Every file must fit the `n` records the folder holds, and fit the others:

- each item record (items.jsonl) has the item fields, of the item types (`_Record`), and
  the id `ids.npy` lists for its row;
- the numeric columns are `n` values of their dtype (content ratings codes of a rating);
  `id_rank` is the inverse of `id_rows`, every sort order an order of the `n` rows, and
  `title_rank` a dense rank of them;
- each membership (genres, services, cast, director, language) has as many keys and
  labels in `members.json` as its `starts` has ranges, `starts` rising from 0 to the
  length of `rows`, and each key's rows ascending and inside the rows;
- the BM25 index has `n` documents: its matrix's `indptr` one more than the vocabulary,
  rising from 0 to the length of `indices` and `data`, every index a row, every weight
  finite; `title_hash` `n` integers;
- the title index (titles/), when there is one, opens (`SavedTitles`), its tables' rows
  are rows and their starts rise, and the columns looked up by binary search are sorted.

A difference is one DataError naming the file and what it should hold, raised before
anything is served. Records are decoded with msgspec (typed, in C), about a second for
300,000 items on a loaded machine, on the caller's thread while the files are hashed.
"""

from __future__ import annotations

import datetime
import gc
import itertools
from pathlib import Path
from typing import Annotated, Any, Final, Literal

import msgspec
import numpy as np
import numpy.typing as npt
import orjson

from taurec.catalog.columns import MEMBERSHIPS, NUMERIC, RATING_CODES, SORT_KEYS
from taurec.catalog.errors import REWRITE_HINT, DataError
from taurec.catalog.strings import StringColumn
from taurec.catalog.title_index import TITLES_FOLDER, SavedTitles

#: Records decoded at a time (bounds the memory of the decoded records).
CHUNK: Final = 20_000
_NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class _Record(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """An item record as the folder writer writes it (`Item`'s fields, strictly typed)."""

    id: _NonEmpty
    title: _NonEmpty
    release_date: datetime.date
    runtime: Annotated[int, msgspec.Meta(ge=0, le=1500)]
    rating: Annotated[float, msgspec.Meta(ge=0, le=10)]
    vote_count: Annotated[int, msgspec.Meta(ge=0)]
    content_rating: Literal["G", "PG", "PG-13", "R", "NC-17", "NR"]
    genres: list[_NonEmpty] = []
    overview: str = ""
    cast: list[_NonEmpty] = []
    director: str | None = None
    streaming_services: list[_NonEmpty] = []
    sponsored: bool = False
    original_language: Annotated[str, msgspec.Meta(min_length=2, max_length=8)] = "en"
    keywords: list[_NonEmpty] = []


RECORD_FIELDS: Final = frozenset(_Record.__struct_fields__)


class _Refused(Exception):
    """A structural problem: the message names the file and what it should hold."""


def check_structure(folder: Path, n: int, offsets: Any, ids: Any, id_rows: Any) -> None:
    """DataError unless every file of the catalog folder fits its `n` records (see the
    module docstring). Call it once `check_layout` has passed: offsets, ids and id_rows
    are then `n` records' worth."""
    try:
        id_rank = _load(folder, "columns/id_rank.npy")
        _check_columns(folder, n, id_rank, id_rows)
        _check_memberships(folder, n)
        _check_orders(folder, n)
        _check_search(folder, n)
        _check_titles(folder, n)
        check_records(folder, offsets, ids, id_rank)
    except _Refused as exc:
        raise DataError(f"{exc}; {REWRITE_HINT}", source=folder) from None


def check_records(folder: Path, offsets: Any, ids: Any, id_rank: Any) -> None:
    """Every record decodes as an item and holds its row's id (`_Refused` otherwise)."""
    decoder = msgspec.json.Decoder(_Record)
    at = np.asarray(offsets, dtype=np.int64)
    n = len(at) - 1
    collecting = gc.isenabled()
    gc.disable()  # decoding makes millions of strings and lists: collecting them halves the speed
    try:
        _check_record_chunks(folder, decoder, at, n, ids, id_rank)
    finally:
        if collecting:
            gc.enable()


def _check_record_chunks(
    folder: Path, decoder: Any, at: npt.NDArray[np.int64], n: int, ids: Any, id_rank: Any
) -> None:
    with open(folder / "items.jsonl", "rb") as fh:
        for first in range(0, n, CHUNK):
            last = min(first + CHUNK, n)
            fh.seek(int(at[first]))
            block = fh.read(int(at[last] - at[first]))
            try:
                records = decoder.decode_lines(block)
            except msgspec.DecodeError:  # ValidationError too: find the line, say what it is
                raise _Refused(_first_bad_line(decoder, block, first)) from None
            if len(records) != last - first:
                raise _Refused(f"items.jsonl: lines {first + 1} to {last} are not one record each")
            expected = ids[np.asarray(id_rank[first:last], dtype=np.int64)].tolist()
            for k, (record, listed) in enumerate(zip(records, expected, strict=True)):
                if record.id.encode() != listed:
                    raise _Refused(
                        f"items.jsonl: line {first + k + 1} holds id {record.id[:60]!r}, but "
                        "ids.npy lists another for its row"
                    )


def _first_bad_line(decoder: Any, block: bytes, first: int) -> str:
    """What is wrong with the first record of `block` (whose first line is `first`) that
    does not decode as an item."""
    for k, line in enumerate(block.split(b"\n")):
        try:
            decoder.decode(line)
        except msgspec.ValidationError as exc:
            what = str(exc).split(" - at `$", 1)
            where = what[1].rstrip("`").lstrip(".") if len(what) > 1 else ""
            field = f" field '{where}'" if where else ""
            return f"items.jsonl: line {first + k + 1}{field}: {what[0]}; expected an item record"
        except msgspec.DecodeError as exc:
            return f"items.jsonl: line {first + k + 1} is not a JSON record ({exc})"
    return f"items.jsonl: a line from {first + 1} on is not one record"


def _load(folder: Path, name: str) -> Any:
    try:
        return np.load(folder / name, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise _Refused(f"{name} is not a numpy array ({str(exc).splitlines()[0][:80]})") from None


def _ints(values: Any, name: str, n: int | None = None) -> npt.NDArray[np.int64]:
    if values.ndim != 1 or values.dtype.kind not in "iu" or (n is not None and len(values) != n):
        raise _Refused(f"{name} is not {'' if n is None else f'{n} '}integers in a row")
    return np.asarray(values, dtype=np.int64)


def _order(values: Any, name: str, n: int) -> npt.NDArray[np.int64]:
    """`values` as int64 when they are an order of the `n` rows (each row once)."""
    rows = _ints(values, name, n)
    if n and (
        int(rows.min()) < 0
        or int(rows.max()) >= n
        or not bool(np.all(np.bincount(rows, minlength=n) == 1))
    ):
        raise _Refused(f"{name} is not an order of the {n} rows")
    return rows


def _check_columns(folder: Path, n: int, id_rank: Any, id_rows: Any) -> None:
    for name, dtype in NUMERIC.items():
        values = _load(folder, f"columns/{name}.npy")
        if values.ndim != 1 or len(values) != n or values.dtype != np.dtype(dtype):
            raise _Refused(f"columns/{name}.npy is not {n} values of type {np.dtype(dtype)}")
    codes = _load(folder, "columns/content_rating.npy")
    if n and (int(codes.min()) < 0 or int(codes.max()) >= len(RATING_CODES)):
        raise _Refused(
            f"columns/content_rating.npy holds a code outside 0..{len(RATING_CODES) - 1}"
        )
    rank = _order(id_rank, "columns/id_rank.npy", n)
    if not bool(np.array_equal(rank[np.asarray(id_rows, dtype=np.int64)], np.arange(n))):
        raise _Refused("columns/id_rank.npy is not the inverse of id_rows.npy")
    ranks = _ints(_load(folder, "columns/title_rank.npy"), "columns/title_rank.npy", n)
    if n and (int(ranks.min()) != 0 or not bool(np.all(np.bincount(ranks) > 0))):
        raise _Refused(
            "columns/title_rank.npy is not a dense rank of the rows (0, 1, ... each used)"
        )


def _check_memberships(folder: Path, n: int) -> None:
    try:
        labels = orjson.loads((folder / "columns" / "members.json").read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise _Refused(f"columns/members.json is not JSON ({exc})") from None
    if not isinstance(labels, dict):
        raise _Refused("columns/members.json is not an object of memberships")
    for name in MEMBERSHIPS:
        entry = labels.get(name)
        keys: Any = entry.get("keys") if isinstance(entry, dict) else None
        spelt: Any = entry.get("labels") if isinstance(entry, dict) else None
        if not (_strings(keys) and _strings(spelt) and len(keys) == len(spelt)):
            raise _Refused(
                f'columns/members.json: "{name}" is not {{"keys": [...], "labels": [...]}} '
                "of as many strings"
            )
        if len(set(keys)) != len(keys):
            raise _Refused(f'columns/members.json: "{name}" lists a key twice')
        rows = _ints(_load(folder, f"columns/{name}.rows.npy"), f"columns/{name}.rows.npy")
        starts = _ints(_load(folder, f"columns/{name}.starts.npy"), f"columns/{name}.starts.npy")
        names = (f"columns/{name}.rows.npy", f"columns/{name}.starts.npy")
        _check_ranges(names, rows, starts, len(keys), n)


def _check_ranges(
    names: tuple[str, str],
    rows: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    k: int,
    n: int,
    *,
    ascending: bool = True,
) -> None:
    """`k` keys' ranges of `rows`: starts rise from 0 to len(rows), rows are rows and,
    where lookups rely on it (`ascending`), ascend within each key. `names`: the files of
    the rows and of the starts."""
    rows_name, starts_name = names
    if len(starts) != k + 1 or int(starts[0]) != 0 or int(starts[-1]) != len(rows):
        raise _Refused(f"{starts_name} is not {k + 1} offsets from 0 to {len(rows)}")
    if not bool(np.all(np.diff(starts) >= 0)):
        raise _Refused(f"{starts_name} does not rise")
    if len(rows) and (int(rows.min()) < 0 or int(rows.max()) >= n):
        raise _Refused(f"{rows_name} holds a row outside 0..{n - 1}")
    if not ascending:
        return
    rising = np.diff(rows) > 0
    inner = np.ones(len(rising), dtype=bool)  # pairs within one key's range
    bounds = starts[1:-1] - 1
    inner[bounds[(bounds >= 0) & (bounds < len(inner))]] = False
    if not bool(np.all(rising[inner])):
        raise _Refused(f"{rows_name}: a key's rows do not ascend")


def _check_orders(folder: Path, n: int) -> None:
    for key in SORT_KEYS:
        for way in ("asc", "desc"):
            name = f"orders/{key}.{way}.npy"
            _order(_load(folder, name), name, n)


def _check_search(folder: Path, n: int) -> None:
    params = _json(folder, "search/params.index.json")
    vocab = _json(folder, "search/vocab.index.json")
    if not isinstance(params, dict) or params.get("num_docs") != n:
        raise _Refused(f"search/params.index.json is not the parameters of {n} documents")
    if not isinstance(vocab, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in vocab.values()
    ):
        raise _Refused("search/vocab.index.json is not an object of token ids")
    if sorted(vocab.values()) != list(range(len(vocab))):
        raise _Refused(f"search/vocab.index.json does not number its {len(vocab)} tokens 0..")
    indptr = _ints(_load(folder, "search/indptr.csc.index.npy"), "search/indptr.csc.index.npy")
    indices = _ints(_load(folder, "search/indices.csc.index.npy"), "search/indices.csc.index.npy")
    data = _load(folder, "search/data.csc.index.npy")
    if data.ndim != 1 or data.dtype.kind != "f" or len(data) != len(indices):
        raise _Refused(f"search/data.csc.index.npy is not {len(indices)} weights")
    names = ("search/indices.csc.index.npy", "search/indptr.csc.index.npy")
    _check_ranges(names, indices, indptr, len(vocab), n, ascending=False)
    if not bool(np.all(np.isfinite(data))):
        raise _Refused("search/data.csc.index.npy holds a weight that is not a number")
    hashes = _load(folder, "search/title_hash.npy")
    if hashes.ndim != 1 or hashes.dtype.kind not in "iu" or len(hashes) != n:
        raise _Refused(f"search/title_hash.npy is not {n} integers")


def _check_titles(folder: Path, n: int) -> None:
    titles = folder / TITLES_FOLDER
    if not titles.is_dir():
        return
    try:
        SavedTitles(folder)
    except DataError as exc:
        raise _Refused(exc.detail.removesuffix(f"; {REWRITE_HINT}")) from None
    for name in ("exact", "fuzzy"):
        rows = _ints(_load(titles, f"{name}.rows.npy"), f"{TITLES_FOLDER}/{name}.rows.npy")
        starts = _ints(_load(titles, f"{name}.starts.npy"), f"{TITLES_FOLDER}/{name}.starts.npy")
        files = (f"{TITLES_FOLDER}/{name}.rows.npy", f"{TITLES_FOLDER}/{name}.starts.npy")
        _check_ranges(files, rows, starts, len(starts) - 1, n)
    for name, ordered in (
        ("exact.keys", True),
        ("exact.titles", False),
        ("fuzzy.keys", False),
        ("fuzzy.titles", False),
        ("first_words", True),
        ("names", True),
        ("people", True),
    ):
        column = _column(titles, name)
        if ordered and not all(a < b for a, b in itertools.pairwise(column)):
            raise _Refused(f"{TITLES_FOLDER}/{name} is not in sorted order (looked up by search)")


def _column(folder: Path, name: str) -> list[str]:
    offsets = _ints(_load(folder, f"{name}.offsets.npy"), f"{TITLES_FOLDER}/{name}.offsets.npy")
    if not bool(np.all(np.diff(offsets) >= 0)):
        raise _Refused(f"{TITLES_FOLDER}/{name}.offsets.npy does not rise")
    try:
        return StringColumn(folder, name).all()
    except (ValueError, UnicodeError) as exc:
        raise _Refused(f"{TITLES_FOLDER}/{name}: {exc}") from None


def _json(folder: Path, name: str) -> Any:
    try:
        return orjson.loads((folder / name).read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise _Refused(f"{name} is not JSON ({exc})") from None


def _strings(values: Any) -> bool:
    return isinstance(values, list) and all(isinstance(v, str) for v in values)
