"""Columnar indexes over a catalog: numpy arrays that make filtering and sorting vectorised.

Row `i` of every column describes `items[i]`. List fields (genres, services, cast) and the
director are stored as memberships: a vocabulary of comparison keys and, per key, the sorted
rows that hold it, so "has genre X" is one array lookup rather than a scan over items.

Columns are built by `ColumnsBuilder` one chunk of items at a time (so a catalog folder is
written without holding every item), or loaded from saved arrays (`taurec.catalog.folder`).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from functools import cached_property

import numpy as np
import numpy.typing as npt

from taurec.catalog.item import ContentRating, Item
from taurec.catalog.services import service_key

Rows = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]

#: Content ratings in code order: column `content_rating` holds an index into this tuple.
RATING_CODES: tuple[ContentRating, ...] = tuple(ContentRating)
_RATING_CODE = {r: i for i, r in enumerate(RATING_CODES)}
#: The sort keys a filter orders by (each in both directions).
SORT_KEYS: tuple[str, ...] = ("rating", "vote_count", "release_date", "runtime", "title")


def name_key(name: str) -> str:
    """Comparison key for genres and people: case-insensitive, whitespace collapsed."""
    return " ".join(name.split()).casefold()


class MembershipBuilder:
    """Collects (row, key) pairs chunk by chunk; `finish` makes the `Membership`."""

    def __init__(self, key: Callable[[str], str]) -> None:
        self._key = key
        self.codes: dict[str, int] = {}
        self.labels: list[str] = []
        # Raw spellings repeat far more than keys are new, so the key function runs once each.
        self._by_spelling: dict[str, int] = {}
        self._rows: list[npt.NDArray[np.int64]] = []
        self._cols: list[npt.NDArray[np.int64]] = []

    def add(self, first_row: int, values: Iterable[Sequence[str]]) -> None:
        """Rows `first_row`, `first_row + 1`, ... hold the names in `values`."""
        lists = list(values)
        flat = list(itertools.chain.from_iterable(lists))
        by_spelling, codes, labels = self._by_spelling, self.codes, self.labels
        for name in dict.fromkeys(flat):
            if name not in by_spelling:
                k = self._key(name)
                code = codes.get(k)
                if code is None:
                    code = codes[k] = len(labels)
                    labels.append(name)
                by_spelling[name] = code
        counts = np.fromiter(map(len, lists), np.int64, len(lists))
        self._rows.append(first_row + np.repeat(np.arange(len(lists), dtype=np.int64), counts))
        self._cols.append(np.fromiter(map(by_spelling.__getitem__, flat), np.int64, len(flat)))

    def finish(self) -> Membership:
        cols = np.concatenate(self._cols) if self._cols else np.zeros(0, np.int64)
        rows = np.concatenate(self._rows) if self._rows else np.zeros(0, np.int64)
        # A stable sort by code keeps each key's rows ascending, which np.isin-free lookups need.
        order = np.argsort(cols, kind="stable")
        starts = np.searchsorted(cols[order], np.arange(len(self.labels) + 1))
        member = Membership(self._key, list(self.codes), self.labels, rows[order], starts)
        member.__dict__["codes"] = self.codes  # the lookup table is already built
        return member


class Membership:
    """Which rows hold which key, for one list-valued (or optional) field.

    `labels[code]` is the first spelling seen for a key, so listings show catalog spelling;
    `keys[code]` is its comparison key; `rows(code)` are the rows holding it, ascending.
    """

    def __init__(
        self,
        key: Callable[[str], str],
        keys: list[str],
        labels: list[str],
        rows: npt.NDArray[np.integer],
        starts: npt.NDArray[np.integer],
    ) -> None:
        self._key = key
        self.keys = keys
        self.labels = labels
        self._rows = rows
        self._starts = starts

    @cached_property
    def codes(self) -> dict[str, int]:
        """Comparison key -> code (built on first lookup)."""
        return {k: code for code, k in enumerate(self.keys)}

    def counts(self) -> npt.NDArray[np.integer]:
        """How many rows hold each code."""
        return np.diff(self._starts)

    @classmethod
    def of(cls, values: Iterable[Sequence[str]], key: Callable[[str], str]) -> Membership:
        """The membership of every row's names in `values` (row 0 first)."""
        builder = MembershipBuilder(key)
        builder.add(0, values)
        return builder.finish()

    @property
    def arrays(self) -> tuple[npt.NDArray[np.integer], npt.NDArray[np.integer]]:
        """(rows, starts): what a catalog folder saves."""
        return self._rows, self._starts

    def code(self, name: str) -> int | None:
        return self.codes.get(self._key(name))

    def rows(self, code: int) -> npt.NDArray[np.integer]:
        """Rows that hold key `code`, ascending."""
        return self._rows[self._starts[code] : self._starts[code + 1]]

    def count(self, code: int) -> int:
        return int(self._starts[code + 1] - self._starts[code])


#: The membership fields, each with its comparison key and how to read it off an item.
MEMBERSHIPS: dict[str, tuple[Callable[[str], str], Callable[[Item], Sequence[str]]]] = {
    "genres": (name_key, operator.attrgetter("genres")),
    "services": (service_key, operator.attrgetter("streaming_services")),
    "cast": (name_key, operator.attrgetter("cast")),
    "director": (name_key, lambda it: (it.director,) if it.director else ()),
    "language": (str, lambda it: (it.original_language,)),
}
#: The per-row numeric columns and their dtypes.
NUMERIC: dict[str, type[np.generic]] = {
    "runtime": np.int32,
    "rating": np.float64,
    "vote_count": np.int64,
    "release": np.int32,
    "content_rating": np.int8,
    "sponsored": np.bool_,
}


#: How each numeric column is read off an item (a C-level getter, then a conversion).
_NUMERIC_READ: dict[str, tuple[Callable[[Item], object], Callable[[object], object] | None]] = {
    "runtime": (operator.attrgetter("runtime"), None),
    "rating": (operator.attrgetter("rating"), None),
    "vote_count": (operator.attrgetter("vote_count"), None),
    "release": (operator.attrgetter("release_date"), date.toordinal),  # type: ignore[dict-item]
    "content_rating": (operator.attrgetter("content_rating"), _RATING_CODE.__getitem__),  # type: ignore[dict-item]
    "sponsored": (operator.attrgetter("sponsored"), None),
}


class ColumnsBuilder:
    """Builds `Columns` from items given a chunk at a time, in row order."""

    def __init__(self) -> None:
        self.n = 0
        self._numeric: dict[str, list[npt.NDArray[np.generic]]] = {k: [] for k in NUMERIC}
        self._members = {name: MembershipBuilder(key) for name, (key, _) in MEMBERSHIPS.items()}
        self.ids: list[str] = []
        self._titles: list[str] = []

    def add(self, items: Sequence[Item]) -> None:
        for name, (read, convert) in _NUMERIC_READ.items():
            values = map(read, items) if convert is None else map(convert, map(read, items))
            self._numeric[name].append(np.fromiter(values, NUMERIC[name], len(items)))
        for name, (_, read) in MEMBERSHIPS.items():
            self._members[name].add(self.n, map(read, items))
        self.ids += [it.id for it in items]
        self._titles += [it.title for it in items]
        self.n += len(items)

    def finish(self) -> Columns:
        numeric = {
            name: np.concatenate(chunks) if chunks else np.zeros(0, NUMERIC[name])
            for name, chunks in self._numeric.items()
        }
        members = {name: b.finish() for name, b in self._members.items()}
        return Columns(self.n, numeric, members, _id_rank(self.ids), _title_rank(self._titles))


def _id_rank(ids: list[str]) -> npt.NDArray[np.int64]:
    rank = np.empty(len(ids), dtype=np.int64)
    rank[np.argsort(np.asarray(ids, dtype=object), kind="stable")] = np.arange(len(ids))
    return rank


def _title_rank(titles: list[str]) -> npt.NDArray[np.int64]:
    keys = np.asarray([t.casefold() for t in titles], dtype=object)
    return np.unique(keys, return_inverse=True)[1].astype(np.int64).reshape(-1)


class Columns:
    """Per-field arrays over a list of items (see the module docstring).

    `id_rank` is the position of each row's id in sorted id order (the tie-break for every
    ranking); `title_rank` the dense rank of each row's case-insensitive title.
    """

    def __init__(
        self,
        n: int,
        numeric: dict[str, npt.NDArray[np.generic]],
        members: dict[str, Membership],
        id_rank: npt.NDArray[np.integer],
        title_rank: npt.NDArray[np.integer],
        orders: dict[tuple[str, bool], npt.NDArray[np.integer]] | None = None,
    ) -> None:
        self.n = n
        self.id_rank = id_rank
        self.title_rank = title_rank
        self.runtime: npt.NDArray[np.int32] = numeric["runtime"]  # type: ignore[assignment]
        self.rating: npt.NDArray[np.float64] = numeric["rating"]  # type: ignore[assignment]
        self.vote_count: npt.NDArray[np.int64] = numeric["vote_count"]  # type: ignore[assignment]
        self.release: npt.NDArray[np.int32] = numeric["release"]  # type: ignore[assignment]
        self.content_rating: npt.NDArray[np.int8] = numeric["content_rating"]  # type: ignore[assignment]
        self.sponsored: npt.NDArray[np.bool_] = numeric["sponsored"]  # type: ignore[assignment]
        self.numeric = numeric
        self.members = members
        self.genres = members["genres"]
        self.services = members["services"]
        self.cast = members["cast"]
        self.director = members["director"]
        self.language = members["language"]
        self._orders: dict[tuple[str, bool], npt.NDArray[np.integer]] = dict(orders or {})

    @classmethod
    def of(cls, items: Sequence[Item]) -> Columns:
        """Columns over `items`, built in one go."""
        builder = ColumnsBuilder()
        builder.add(items)
        return builder.finish()

    def any_of(self, membership: Membership, codes: Iterable[int]) -> Mask:
        """Rows holding at least one of `codes`."""
        mask = np.zeros(self.n, dtype=np.bool_)
        for code in codes:
            mask[membership.rows(code)] = True
        return mask

    def order(self, key: str, *, descending: bool) -> npt.NDArray[np.integer]:
        """All rows sorted by `key` (ties by id, ascending, in both directions); cached."""
        cached = self._orders.get((key, descending))
        if cached is None:
            cached = self._orders[(key, descending)] = self._sort(key, descending)
        return cached

    def all_orders(self) -> dict[tuple[str, bool], npt.NDArray[np.integer]]:
        """Every sort order (built now where missing): what a catalog folder saves."""
        return {(k, d): self.order(k, descending=d) for k in SORT_KEYS for d in (False, True)}

    def _sort(self, key: str, descending: bool) -> npt.NDArray[np.integer]:
        columns: dict[str, npt.NDArray[np.integer] | npt.NDArray[np.floating]] = {
            "rating": self.rating,
            "vote_count": self.vote_count,
            "release_date": self.release,
            "runtime": self.runtime,
            "title": self.title_rank,
        }
        column = columns[key]
        # float64 holds every int32/int64 column value here exactly (vote counts < 2**53).
        primary = -column.astype(np.float64) if descending else column
        return np.lexsort((self.id_rank, primary)).astype(np.int64)
