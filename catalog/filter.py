"""Structured filter: every predicate in a `FilterSpec` must hold; results come in pages.

Matching rules: genres, director and cast compare case-insensitively as whole names;
services go through `taurec.catalog.services` ("Prime Video" == "Amazon Prime Video");
every bound is inclusive. Results are sorted by `sort`, ties by item id, and a cursor
encodes the position in that order, so paging through returns each match exactly once.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence
from datetime import date
from typing import Literal, Protocol

import numpy as np
import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

from taurec.catalog.columns import RATING_CODES, Columns, Mask, Membership, name_key
from taurec.catalog.item import ContentRating, Item
from taurec.catalog.services import canonical_service

SortKey = Literal[
    "rating",
    "-rating",
    "vote_count",
    "-vote_count",
    "popularity",
    "-popularity",
    "release_date",
    "-release_date",
    "runtime",
    "-runtime",
    "title",
    "-title",
]
_SORT_COLUMN = {"popularity": "vote_count"}
Name = str
#: The largest whole number a filter takes (2**53 - 1, the I-JSON bound): every JSON
#: reader holds it exactly, and so does an episode log.
MAX_WHOLE = 2**53 - 1
#: Unknown names a warning lists, each cut short (the rest are counted): a warning names
#: them, it does not echo a megabyte of them back.
MAX_WARNED_NAMES = 10


class RowLookup(Protocol):
    """Finds an item's row by id (a dict, or a catalog folder's sorted ids)."""

    def get(self, item_id: str, /) -> int | None: ...

    def __contains__(self, item_id: object, /) -> bool: ...


class FilterError(ValueError):
    """A filter request that cannot be run (bad cursor)."""


class FilterSpec(BaseModel):
    """Predicates over catalog items; an item matches when every given predicate holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    genres_any: list[Name] = Field(
        default_factory=list, description="Item has at least one of these genres."
    )
    genres_all: list[Name] = Field(
        default_factory=list, description="Item has every one of these genres."
    )
    genres_none: list[Name] = Field(
        default_factory=list, description="Item has none of these genres."
    )
    runtime_min: int | None = Field(
        default=None, ge=0, le=MAX_WHOLE, description="Minimum runtime in minutes (inclusive)."
    )
    runtime_max: int | None = Field(
        default=None, ge=0, le=MAX_WHOLE, description="Maximum runtime in minutes (inclusive)."
    )
    content_ratings: list[ContentRating] = Field(
        default_factory=list, description="Allowed maturity ratings, e.g. ['G', 'PG']."
    )
    min_rating: float | None = Field(
        default=None,
        ge=0,
        le=10,
        description="Minimum audience rating on the 0-10 scale (inclusive).",
    )
    min_votes: int | None = Field(
        default=None, ge=0, le=MAX_WHOLE, description="Minimum number of audience votes."
    )
    services_any: list[Name] = Field(
        default_factory=list,
        description="Streams on at least one of these services; aliases like 'Prime Video' work.",
    )
    released_after: date | None = Field(
        default=None, description="Released on or after this ISO date, e.g. '2010-01-01'."
    )
    released_before: date | None = Field(
        default=None, description="Released on or before this ISO date, e.g. '2019-12-31'."
    )
    director: Name | None = Field(
        default=None, description="Director's full name (case-insensitive)."
    )
    cast_member: Name | None = Field(
        default=None, description="A cast member's full name (case-insensitive)."
    )
    exclude_ids: list[str] = Field(default_factory=list, description="Item ids to leave out.")
    sort: SortKey = Field(
        default="-popularity",
        description="Sort field; a leading '-' means descending. 'popularity' is vote_count.",
    )
    limit: int = Field(default=10, ge=1, le=100, description="Page size (1-100).")
    cursor: str | None = Field(
        default=None, description="The next_cursor of the previous page; omit for the first page."
    )

    @model_validator(mode="after")
    def _consistent(self) -> FilterSpec:
        if (
            self.runtime_min is not None
            and self.runtime_max is not None
            and self.runtime_min > self.runtime_max
        ):
            raise ValueError(
                f"runtime_min ({self.runtime_min}) is above runtime_max ({self.runtime_max}); "
                "expected runtime_min <= runtime_max"
            )
        if (
            self.released_after
            and self.released_before
            and self.released_after > self.released_before
        ):
            raise ValueError(
                f"released_after ({self.released_after}) is later than released_before "
                f"({self.released_before}); expected released_after <= released_before"
            )
        none = {name_key(g) for g in self.genres_none}
        both = [g for g in self.genres_all if name_key(g) in none]
        if both:
            raise ValueError(f"genres {both} are in both genres_all and genres_none")
        if self.genres_any and all(name_key(g) in none for g in self.genres_any):
            raise ValueError("every genre in genres_any is also in genres_none; nothing can match")
        for label, value in (("director", self.director), ("cast_member", self.cast_member)):
            if value is not None and not value.strip():
                raise ValueError(f"{label} is empty; expected a person's name or null")
        return self

    def fingerprint(self) -> str:
        """Identifies the query a cursor belongs to (everything but `limit` and `cursor`)."""
        body = self.model_dump_json(exclude={"limit", "cursor"})
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def offset(self) -> int:
        """Position the cursor points at (0 without a cursor); FilterError if it is bad."""
        if self.cursor is None:
            return 0
        bad = FilterError(
            f"cursor {_short(self.cursor)} is not valid for this filter; expected the next_cursor "
            "returned by the previous page of the same filter (same predicates and sort)"
        )
        try:
            doc = orjson.loads(base64.urlsafe_b64decode(self.cursor.encode("ascii")))
        except (binascii.Error, ValueError, UnicodeEncodeError):
            raise bad from None
        if (
            not isinstance(doc, dict)
            or doc.get("f") != self.fingerprint()
            or not isinstance(doc.get("o"), int)
            or doc["o"] < 0
        ):
            raise bad
        return int(doc["o"])


def _short(value: str, limit: int = 60) -> str:
    """repr() cut to `limit` characters: an error names a bad value, it does not echo it."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def encode_cursor(spec: FilterSpec, offset: int) -> str:
    doc = orjson.dumps({"o": offset, "f": spec.fingerprint()})
    return base64.urlsafe_b64encode(doc).decode("ascii")


class ItemSummary(BaseModel):
    """The fields of an item a listing shows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    title: str
    year: int
    runtime: int = Field(description="Minutes.")
    genres: list[str]
    rating: float = Field(description="Audience rating, 0-10.")
    content_rating: ContentRating
    streaming_services: list[str]
    sponsored: bool = Field(description="Promoted placement; must be disclosed if recommended.")

    @classmethod
    def of(cls, item: Item) -> ItemSummary:
        return cls(
            id=item.id,
            title=item.title,
            year=item.year,
            runtime=item.runtime,
            genres=list(item.genres),
            rating=item.rating,
            content_rating=item.content_rating,
            streaming_services=list(item.streaming_services),
            sponsored=item.sponsored,
        )


class FilterPage(BaseModel):
    """One page of filter results."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    items: list[ItemSummary] = Field(description="This page's matches, in sort order.")
    total: int = Field(description="Number of matching items across all pages.")
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` to get the next page; null on the last page."
    )
    warnings: list[str] = Field(
        default_factory=list, description="Names the catalog does not know (they match nothing)."
    )


def _codes(
    membership: Membership, names: Sequence[str], label: str, warnings: list[str]
) -> list[int | None]:
    codes = [membership.code(n) for n in names]
    unknown = list(dict.fromkeys(n for n, c in zip(names, codes, strict=True) if c is None))
    if unknown:
        listed = ", ".join(_short(n) for n in unknown[:MAX_WARNED_NAMES])
        more = len(unknown) - MAX_WARNED_NAMES
        warnings.append(f"unknown {label}: {listed}" + (f" (and {more} more)" if more > 0 else ""))
    return codes


def match_mask(columns: Columns, spec: FilterSpec, rows: RowLookup) -> tuple[Mask, list[str]]:
    """Which rows satisfy `spec` (cursor, sort and limit aside), and warnings about names."""
    c = columns
    warnings: list[str] = []
    mask = np.ones(c.n, dtype=np.bool_)
    if spec.genres_any:
        codes = _codes(c.genres, spec.genres_any, "genres", warnings)
        mask &= c.any_of(c.genres, (k for k in codes if k is not None))
    for code in _codes(c.genres, spec.genres_all, "genres", warnings):
        mask &= c.any_of(c.genres, [] if code is None else [code])
    for code in _codes(c.genres, spec.genres_none, "genres", warnings):
        if code is not None:
            mask[c.genres.rows(code)] = False
    if spec.runtime_min is not None:
        mask &= c.runtime >= spec.runtime_min
    if spec.runtime_max is not None:
        mask &= c.runtime <= spec.runtime_max
    if spec.content_ratings:
        wanted = [RATING_CODES.index(r) for r in spec.content_ratings]
        mask &= np.isin(c.content_rating, wanted)
    if spec.min_rating is not None:
        mask &= c.rating >= spec.min_rating
    if spec.min_votes is not None:
        mask &= c.vote_count >= spec.min_votes
    if spec.services_any:
        names = [canonical_service(s) for s in spec.services_any]
        codes = _codes(c.services, names, "streaming services", warnings)
        mask &= c.any_of(c.services, (k for k in codes if k is not None))
    if spec.released_after is not None:
        mask &= c.release >= spec.released_after.toordinal()
    if spec.released_before is not None:
        mask &= c.release <= spec.released_before.toordinal()
    for membership, name, label in (
        (c.director, spec.director, "director"),
        (c.cast, spec.cast_member, "cast member"),
    ):
        if name is not None:
            code = _codes(membership, [name], label, warnings)[0]
            mask &= c.any_of(membership, [] if code is None else [code])
    for item_id in spec.exclude_ids:
        row = rows.get(item_id)
        if row is not None:
            mask[row] = False
    return mask, warnings


def run_filter(
    items: Sequence[Item], columns: Columns, spec: FilterSpec, rows: RowLookup
) -> FilterPage:
    """The page of matches `spec.cursor` points at; FilterError on a bad cursor."""
    offset = spec.offset()
    mask, warnings = match_mask(columns, spec, rows)
    key = spec.sort.removeprefix("-")
    order = columns.order(_SORT_COLUMN.get(key, key), descending=spec.sort.startswith("-"))
    matches = order[mask[order]]
    total = len(matches)
    if offset > total:
        raise FilterError(f"cursor points past the last of {total} matches; start again without it")
    page = matches[offset : offset + spec.limit]
    end = offset + len(page)
    return FilterPage(
        items=[ItemSummary.of(items[int(r)]) for r in page],
        total=total,
        next_cursor=encode_cursor(spec, end) if end < total else None,
        warnings=warnings,
    )
