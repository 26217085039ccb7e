"""A catalog of real films from MovieLens (`taurec catalog build movielens:recbole`): the
1,682 films of MovieLens-100K, read at run time from the recbole wheel (or a MovieLens
folder, `movielens:PATH`), never shipped: MovieLens's licence forbids redistribution.

Each film keeps its MovieLens id (`ml<id>`), title and genres; its release date is
January 1st of its year; its rating is the mean of its MovieLens ratings on a 0-10 scale
(stars times two) and its vote count their number. MovieLens says nothing of running
time, cast, director, content rating or streaming services: runtime is 0, the content
rating NR, the lists empty. Constraints on those fields would be meaningless over this
catalog; the CRS suite generator uses none (taurec tasks generate --for crs).
"""

from __future__ import annotations

from datetime import date

import numpy as np

from taurec.catalog.io import CatalogMeta
from taurec.catalog.item import ContentRating, Item
from taurec.catalog.movielens import read_movielens

PREFIX = "movielens:"
#: Films without any year in MovieLens are dated to this day (MovieLens-100K has one).
UNKNOWN_YEAR = 1900


def is_movielens(spec: str) -> bool:
    return spec.startswith(PREFIX)


def movielens_catalog(spec: str) -> tuple[CatalogMeta, list[Item]]:
    """The films of `movielens:recbole` or `movielens:PATH` as catalog items. DataError
    when the data cannot be read (recbole not installed, a folder in another layout)."""
    data = read_movielens(spec.removeprefix(PREFIX))
    n = len(data.items)
    sums = np.bincount(data.item, weights=data.rating.astype(np.float64), minlength=n)
    counts = np.bincount(data.item, minlength=n)
    items = []
    for k, info in enumerate(data.items):
        year = info.attributes.get("Year", "")
        votes = int(counts[k])
        items.append(
            Item(
                id=info.id,
                title=info.title,
                release_date=date(int(year) if year.isdigit() else UNKNOWN_YEAR, 1, 1),
                runtime=0,
                genres=[g for g in info.categories if g and g != "unknown"],
                rating=round(2 * sums[k] / votes, 2) if votes else 0.0,
                vote_count=votes,
                content_rating=ContentRating.NR,
            )
        )
    meta = CatalogMeta(
        name="movielens",
        source=spec,
        description=f"{n} films of MovieLens ({data.source}), read at run time; MovieLens's "
        "licence forbids redistributing them.",
    )
    return meta, items
