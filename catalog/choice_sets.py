"""Categories and the choice sets sampled from them.

A category is a named group of at least 15 items a customer might shop among: for
movies a genre, a genre within an era, or a theme (keyword); for products the leaf of
the category path. Each stream episode shows a choice set: up to 30 items of one
category, sampled with a seed combined with the category's own hash (as BIEL seeds by
seed + md5(category)), so the same (seed, category) always gives the same set.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, model_validator

from taurec.catalog.choice_items import ChoiceItem

#: Fewest items a category may hold (BIEL prunes smaller ones).
MIN_CATEGORY_ITEMS: Final = 15
#: Items shown per episode.
CHOICE_SET_SIZE: Final = 30
#: Movie eras: (name, first year, last year).
ERAS: Final = (("before 2010", 1800, 2009), ("2010 on", 2010, 2100))


class Category(BaseModel):
    """A named group of items; `item_ids` in a stable order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9_.:-]+$", description="Slug, e.g. 'genre:comedy'.")
    name: str = Field(min_length=1, description="What a shopper calls it, e.g. 'Comedy'.")
    item_ids: list[str] = Field(description="Its items, at least 15.")

    @model_validator(mode="after")
    def _large_enough(self) -> Category:
        n = len(set(self.item_ids))
        if n < MIN_CATEGORY_ITEMS:
            raise ValueError(
                f"category {self.id!r} has {n} distinct items; expected at least "
                f"{MIN_CATEGORY_ITEMS}"
            )
        return self


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def _grouped(
    groups: dict[tuple[str, str], list[str]], min_items: int, max_items: int | None
) -> list[Category]:
    out = []
    for (cid, name), ids in sorted(groups.items()):
        distinct = sorted(set(ids))
        if len(distinct) >= min_items and (max_items is None or len(distinct) <= max_items):
            out.append(Category(id=cid, name=name, item_ids=distinct))
    return out


def movie_categories(
    items: Iterable[ChoiceItem],
    *,
    min_items: int = MIN_CATEGORY_ITEMS,
    max_items: int | None = None,
    themes: bool = True,
) -> list[Category]:
    """Genres, genres within an era, and (with `themes`) keywords, each kept when it holds
    at least `min_items` (and at most `max_items`, to prune too-broad ones) items."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for item in items:
        for genre in item.categories:
            groups[(f"genre:{slug(genre)}", genre)].append(item.id)
            for era, first, last in ERAS:
                if item.year is not None and first <= item.year <= last:
                    groups[(f"genre-era:{slug(genre)}:{slug(era)}", f"{genre}, {era}")].append(
                        item.id
                    )
        if themes:
            for keyword in item.keywords:
                groups[(f"theme:{slug(keyword)}", f"Films about {keyword}")].append(item.id)
    return _grouped(groups, max(min_items, MIN_CATEGORY_ITEMS), max_items)


def product_categories(
    items: Iterable[ChoiceItem], *, min_items: int = MIN_CATEGORY_ITEMS, drop_levels: int = 2
) -> list[Category]:
    """Products grouped by their category path below its top `drop_levels` levels (BIEL
    drops the two broadest), at the deepest level that still holds `min_items`."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for item in items:
        path = item.categories[drop_levels:]
        for depth in range(1, len(path) + 1):
            key = " > ".join(path[:depth])
            groups[(f"path:{slug(key)}", path[depth - 1])].append(item.id)
    cats = _grouped(groups, max(min_items, MIN_CATEGORY_ITEMS), None)
    # a parent whose items all sit in one kept child adds nothing
    kept_sets = {c.id: frozenset(c.item_ids) for c in cats}
    return [
        c
        for c in cats
        if not any(
            other != c.id and other.startswith(c.id + "-") and kept_sets[other] == kept_sets[c.id]
            for other in kept_sets
        )
    ]


def category_seed(seed: int, category_id: str) -> int:
    """A choice set's seed: the stream seed plus the first 32 bits of the category id's
    md5, after BIEL's seeding by seed + md5(category) (BIEL's exact formula, over the
    category's name, is `biel_seed` in tasks/stream/biel_streams.py)."""
    digest = hashlib.md5(category_id.encode(), usedforsecurity=False).hexdigest()
    return seed + int(digest[:8], 16)


def sample_choice_set(category: Category, seed: int, size: int = CHOICE_SET_SIZE) -> list[str]:
    """Up to `size` item ids of `category`, in a seeded random order."""
    rng = random.Random(category_seed(seed, category.id))
    ids = sorted(set(category.item_ids))
    return rng.sample(ids, min(size, len(ids)))
