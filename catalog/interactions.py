"""Interactions: (user, item, rating, time) records, their items, and the per-user
chronological 8:1:1 split.

Columns are numpy arrays sorted by (user, time, item), so one user's records are one
contiguous slice (`span`) and "the user's history before time t" is a binary search.
Per item, the times of its records are kept sorted too, for "how many users had this
item before t" in O(log n). Items carry what the ranking tools show: a title, categories
and a few labelled attributes (Director / Year for films, Store / Price for products).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from functools import cached_property

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.errors import DataError


class ItemInfo(BaseModel):
    """What is known of one interacted item."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    categories: list[str] = Field(default_factory=list)
    attributes: dict[str, str] = Field(
        default_factory=dict, description="Labelled facts shown next to the categories."
    )


class CategoryShape(StrEnum):
    """What an item's category list is: one root-to-leaf path (Amazon Reviews 2023:
    ["CDs & Vinyl", "Rock", "Classic Rock"]) or independent labels (MovieLens genres),
    in no order that means anything."""

    PATH = "path"
    LABELS = "labels"


class Part(IntEnum):
    """Which part of the chronological 8:1:1 split a record is in."""

    TRAIN = 0
    VALID = 1
    TEST = 2


@dataclass
class Interactions:
    """An interaction data set. Build it with `Interactions.build` (which sorts and checks)."""

    source: str
    items: list[ItemInfo]
    user_ids: list[str]
    user: np.ndarray  # int32 index into user_ids
    item: np.ndarray  # int32 index into items
    rating: np.ndarray  # float32, 1-5 (0 when the source has none)
    time: np.ndarray  # int64 unix seconds
    category_shape: CategoryShape = CategoryShape.LABELS
    starts: np.ndarray = field(init=False)  # user u's records: starts[u]:starts[u + 1]

    def __post_init__(self) -> None:
        self.starts = np.searchsorted(self.user, np.arange(len(self.user_ids) + 1))

    @classmethod
    def build(
        cls,
        source: str,
        items: list[ItemInfo],
        user_ids: list[str],
        user: np.ndarray,
        item: np.ndarray,
        rating: np.ndarray,
        time: np.ndarray,
        category_shape: CategoryShape = CategoryShape.LABELS,
    ) -> Interactions:
        n = len(user)
        if not (len(item) == len(rating) == len(time) == n):
            raise DataError(
                "columns of different lengths; expected one value per record", source=source
            )
        if n and (user.min() < 0 or user.max() >= len(user_ids)):
            raise DataError("a user index outside the user list", source=source, field="user")
        if n and (item.min() < 0 or item.max() >= len(items)):
            raise DataError("an item index outside the item list", source=source, field="item")
        order = np.lexsort((item, time, user))
        return cls(
            source,
            items,
            user_ids,
            np.ascontiguousarray(user[order], dtype=np.int32),
            np.ascontiguousarray(item[order], dtype=np.int32),
            np.ascontiguousarray(rating[order], dtype=np.float32),
            np.ascontiguousarray(time[order], dtype=np.int64),
            category_shape,
        )

    def __len__(self) -> int:
        return len(self.user)

    # --- lookups --------------------------------------------------------------------------

    @cached_property
    def user_index(self) -> dict[str, int]:
        return {u: i for i, u in enumerate(self.user_ids)}

    @cached_property
    def item_index(self) -> dict[str, int]:
        return {it.id: i for i, it in enumerate(self.items)}

    def user_of(self, user_id: str) -> int:
        """The index of `user_id`; DataError naming the user when it is unknown."""
        u = self.user_index.get(user_id)
        if u is None:
            raise DataError(
                f"unknown user {user_id!r}; expected a user of the interaction data "
                f"({len(self.user_ids)} users, e.g. {self.user_ids[0] if self.user_ids else '-'})",
                source=self.source,
                field="user_id",
            )
        return u

    def item_of(self, item_id: str) -> int:
        i = self.item_index.get(item_id)
        if i is None:
            raise DataError(
                f"unknown item {item_id!r}; expected an item of the interaction data",
                source=self.source,
                field="item_id",
            )
        return i

    def span(self, u: int) -> tuple[int, int]:
        return int(self.starts[u]), int(self.starts[u + 1])

    def before(self, u: int, t: int) -> tuple[int, int]:
        """Record positions of user u strictly before time t."""
        lo, hi = self.span(u)
        return lo, lo + int(np.searchsorted(self.time[lo:hi], t, side="left"))

    @cached_property
    def _item_times(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(order by (item, time), times in that order, item starts)."""
        order = np.lexsort((self.time, self.item))
        starts = np.searchsorted(self.item[order], np.arange(len(self.items) + 1))
        return order, self.time[order], starts

    def item_records_before(self, i: int, t: int) -> np.ndarray:
        """Record positions of item i strictly before time t (oldest first)."""
        order, times, starts = self._item_times
        lo, hi = int(starts[i]), int(starts[i + 1])
        return order[lo : lo + int(np.searchsorted(times[lo:hi], t, side="left"))]

    # --- the split ------------------------------------------------------------------------

    @cached_property
    def parts(self) -> np.ndarray:
        """Part of each record: per user, in time order, the first 80% (floor) train, the
        next 10% valid, the rest test; users with fewer than 3 records are all train."""
        counts = np.diff(self.starts)
        pos = np.arange(len(self)) - np.repeat(self.starts[:-1], counts)
        n = np.repeat(counts, counts)
        train_end = np.floor(0.8 * n).astype(np.int64)
        valid_end = np.floor(0.9 * n).astype(np.int64)
        out = np.full(len(self), Part.TRAIN, dtype=np.int8)
        out[(pos >= train_end) & (n >= 3)] = Part.VALID
        out[(pos >= valid_end) & (n >= 3)] = Part.TEST
        return out

    def sha256(self) -> str:
        h = hashlib.sha256()
        for col in (self.user, self.item, self.rating, self.time):
            h.update(col.tobytes())
        h.update("\n".join(self.user_ids).encode())
        h.update("\n".join(it.model_dump_json() for it in self.items).encode())
        return h.hexdigest()

    def without_records_from(self, t: int) -> Interactions:
        """A copy holding only the records strictly before time t (a future-free copy)."""
        keep = self.time < t
        return Interactions.build(
            self.source,
            self.items,
            self.user_ids,
            self.user[keep],
            self.item[keep],
            self.rating[keep],
            self.time[keep],
            self.category_shape,
        )
