"""A catalog's summary (`taurec catalog info`), computed from its columns alone.

Counting over the columnar arrays never decodes an item, so a million-item catalog folder
is summarised in well under a second. Counts are listed most common first; ties keep the
order in which the catalog first mentions each value.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np

from taurec.catalog.columns import RATING_CODES, Membership
from taurec.catalog.store import Catalog


def _counts(member: Membership) -> dict[str, int]:
    """Occurrences per key, under its catalog spelling (codes are in first-seen order)."""
    pairs = zip(member.labels, member.counts().tolist(), strict=True)
    return dict(sorted(pairs, key=lambda pair: -pair[1]))


def summary(cat: Catalog) -> dict[str, Any]:
    """Where the catalog came from, its size, years, and counts per genre, rating, service."""
    c = cat.columns
    release = np.asarray(c.release)
    ratings = np.asarray(c.content_rating)
    counts = np.bincount(ratings, minlength=len(RATING_CODES))
    present = np.flatnonzero(counts).tolist()
    by_first = sorted(present, key=lambda code: int(np.argmax(ratings == code)))
    content = dict(
        sorted(
            ((RATING_CODES[code].value, int(counts[code])) for code in by_first),
            key=lambda p: -p[1],
        )
    )
    served = np.bincount(np.asarray(c.services.arrays[0]), minlength=c.n)
    on_service = int(np.count_nonzero(served))
    meta = cat.meta
    return {
        "name": meta.name,
        "source": meta.source,
        "snapshot_date": meta.snapshot_date.isoformat() if meta.snapshot_date else None,
        "seed": meta.seed,
        "items": c.n,
        "years": [
            date.fromordinal(int(release.min())).year,
            date.fromordinal(int(release.max())).year,
        ],
        "sponsored": int(np.count_nonzero(c.sponsored)),
        "on_no_service": c.n - on_service,
        "genres": _counts(c.genres),
        "content_ratings": content,
        "services": _counts(c.services),
        "languages": _counts(c.language),
    }
