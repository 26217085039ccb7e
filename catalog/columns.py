"""Columnar indexes over a catalog: numpy arrays that make filtering and sorting vectorised.

Row `i` of every column describes `items[i]`. List fields (genres, services, cast) and the
director are stored as memberships: a vocabulary of comparison keys and, per key, the sorted
rows that hold it, so "has genre X" is one array lookup rather than a scan over items.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cached_property

import numpy as np
import numpy.typing as npt

from .item import ContentRating, Item
from .services import service_key

Rows = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]

#: Content ratings in code order: column `content_rating` holds an index into this tuple.
RATING_CODES: tuple[ContentRating, ...] = tuple(ContentRating)
_RATING_CODE = {r: i for i, r in enumerate(RATING_CODES)}


def name_key(name: str) -> str:
    """Comparison key for genres and people: case-insensitive, whitespace collapsed."""
    return " ".join(name.split()).casefold()


class Membership:
    """Which rows hold which key, for one list-valued (or optional) field.

    `labels[code]` is the first spelling seen for a key, so listings show catalog spelling.
    """

    def __init__(self, values: Iterable[Sequence[str]], key: Callable[[str], str]) -> None:
        self._key = key
        self.codes: dict[str, int] = {}
        self.labels: list[str] = []
        rows: list[int] = []
        cols: list[int] = []
        # Raw spellings repeat far more than keys are new, so the key function runs once each.
        by_spelling: dict[str, int] = {}
        for row, names in enumerate(values):
            for name in names:
                code = by_spelling.get(name)
                if code is None:
                    k = key(name)
                    code = self.codes.get(k)
                    if code is None:
                        code = self.codes[k] = len(self.labels)
                        self.labels.append(name)
                    by_spelling[name] = code
                rows.append(row)
                cols.append(code)
        col_arr = np.asarray(cols, dtype=np.int64)
        row_arr = np.asarray(rows, dtype=np.int64)
        # A stable sort by code keeps each key's rows ascending, which np.isin-free lookups need.
        order = np.argsort(col_arr, kind="stable")
        self._rows: Rows = row_arr[order]
        self._starts = np.searchsorted(col_arr[order], np.arange(len(self.labels) + 1))

    def code(self, name: str) -> int | None:
        return self.codes.get(self._key(name))

    def rows(self, code: int) -> Rows:
        """Rows that hold key `code`, ascending."""
        return self._rows[self._starts[code] : self._starts[code + 1]]

    def count(self, code: int) -> int:
        return int(self._starts[code + 1] - self._starts[code])


class Columns:
    """Per-field arrays over a list of items (see the module docstring)."""

    def __init__(self, items: Sequence[Item]) -> None:
        n = len(items)
        self.n = n
        self.ids: list[str] = [it.id for it in items]
        self.runtime = np.fromiter((it.runtime for it in items), dtype=np.int32, count=n)
        self.rating = np.fromiter((it.rating for it in items), dtype=np.float64, count=n)
        self.vote_count = np.fromiter((it.vote_count for it in items), dtype=np.int64, count=n)
        self.release = np.fromiter(
            (it.release_date.toordinal() for it in items), dtype=np.int32, count=n
        )
        self.content_rating = np.fromiter(
            (_RATING_CODE[it.content_rating] for it in items), dtype=np.int8, count=n
        )
        self.sponsored = np.fromiter((it.sponsored for it in items), dtype=np.bool_, count=n)
        self.genres = Membership((it.genres for it in items), name_key)
        self.services = Membership((it.streaming_services for it in items), service_key)
        self.cast = Membership((it.cast for it in items), name_key)
        self.director = Membership(
            ((it.director,) if it.director else () for it in items), name_key
        )
        self._titles: list[str] = [it.title for it in items]
        self._orders: dict[tuple[str, bool], Rows] = {}

    @cached_property
    def id_rank(self) -> npt.NDArray[np.int64]:
        """Position of each row's id in sorted id order: the tie-break for every ranking."""
        rank = np.empty(self.n, dtype=np.int64)
        rank[np.argsort(np.asarray(self.ids, dtype=object), kind="stable")] = np.arange(self.n)
        return rank

    @cached_property
    def title_rank(self) -> npt.NDArray[np.int64]:
        """Dense rank of each row's case-insensitive title: equal titles share a rank."""
        keys = np.asarray([t.casefold() for t in self._titles], dtype=object)
        return np.unique(keys, return_inverse=True)[1].astype(np.int64)

    def any_of(self, membership: Membership, codes: Iterable[int]) -> Mask:
        """Rows holding at least one of `codes`."""
        mask = np.zeros(self.n, dtype=np.bool_)
        for code in codes:
            mask[membership.rows(code)] = True
        return mask

    def order(self, key: str, *, descending: bool) -> Rows:
        """All rows sorted by `key` (ties by id, ascending, in both directions); cached."""
        cached = self._orders.get((key, descending))
        if cached is None:
            cached = self._orders[(key, descending)] = self._sort(key, descending)
        return cached

    def _sort(self, key: str, descending: bool) -> Rows:
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
