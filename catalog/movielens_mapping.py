"""Mapping MovieLens movies onto a catalog's items, so that ranking tasks over MovieLens
histories use the catalog's item ids, titles and genres (and its search and metadata).

A movie matches a catalog item when their titles agree once normalised (case, accents,
punctuation, MovieLens' trailing article: "Usual Suspects, The (1995)") and their release
years differ by at most one. An ambiguous title (two catalog items of that title and
year) is not mapped. Ratings of movies with no match are dropped and counted: a reader
sees how much of the data set the catalog covers.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions, ItemInfo
from taurec.catalog.item import Item

_YEAR = re.compile(r"\s*\((\d{4})\)\s*$")
_ARTICLE = re.compile(r"^(.*), (the|a|an|les|la|le|il|el|die|der|das)$", re.IGNORECASE)


def normalise_title(title: str) -> tuple[str, int | None]:
    """(comparable title, year in the title or None)."""
    year = None
    found = _YEAR.search(title)
    if found:
        year = int(found.group(1))
        title = title[: found.start()]
    moved = _ARTICLE.match(title.strip())
    if moved:
        title = f"{moved.group(2)} {moved.group(1)}"
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split()), year


@dataclass(frozen=True)
class MappingReport:
    movies: int
    mapped_movies: int
    records: int
    kept_records: int

    def line(self) -> str:
        return (
            f"{self.mapped_movies:,} of {self.movies:,} movies mapped onto catalog items; "
            f"{self.kept_records:,} of {self.records:,} ratings kept"
        )


def map_onto_catalog(data: Interactions, items: list[Item]) -> tuple[Interactions, MappingReport]:
    """`data` with its movies replaced by the catalog items they match (see the module
    docstring). DataError when no movie matches."""
    by_title: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_title[normalise_title(item.title)[0]].append(item)
    target: dict[int, Item] = {}
    for index, info in enumerate(data.items):
        name, year = normalise_title(info.title)
        if year is None and info.attributes.get("Year", "").isdigit():
            year = int(info.attributes["Year"])
        near = [c for c in by_title.get(name, []) if year is None or abs(c.year - year) <= 1]
        if len(near) == 1:
            target[index] = near[0]
    if not target:
        raise DataError(
            f"none of its {len(data.items):,} movies matches a catalog item by title and "
            "year; expected a catalog of real films (e.g. one built from TMDB)",
            source=data.source,
        )
    chosen = sorted({item.id: item for item in target.values()}.values(), key=lambda i: i.id)
    position = {item.id: n for n, item in enumerate(chosen)}
    remap = np.full(len(data.items), -1, dtype=np.int64)
    for index, item in target.items():
        remap[index] = position[item.id]
    new_item = remap[data.item]
    keep = new_item >= 0
    kept_users = np.unique(data.user[keep])
    user_index = np.full(len(data.user_ids), -1, dtype=np.int64)
    user_index[kept_users] = np.arange(len(kept_users))
    mapped = Interactions.build(
        f"{data.source} mapped onto catalog items",
        [ItemInfo(id=i.id, title=i.title, categories=list(i.genres)) for i in chosen],
        [data.user_ids[u] for u in kept_users],
        user_index[data.user[keep]].astype(np.int32),
        new_item[keep].astype(np.int32),
        data.rating[keep],
        data.time[keep],
    )
    report = MappingReport(len(data.items), len(target), len(data.user), int(keep.sum()))
    return mapped, report
