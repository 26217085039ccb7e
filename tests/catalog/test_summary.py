"""The column-based summary counts what an item-by-item count finds."""

from __future__ import annotations

from collections import Counter

import pytest

from taurec.catalog.builders.synthetic import generate_items
from taurec.catalog.store import Catalog
from taurec.catalog.summary import summary


def _counted(cat: Catalog) -> dict[str, object]:
    items = cat.items
    return {
        "items": len(items),
        "years": [min(it.year for it in items), max(it.year for it in items)],
        "sponsored": sum(it.sponsored for it in items),
        "on_no_service": sum(not it.streaming_services for it in items),
        "genres": dict(Counter(g for it in items for g in it.genres).most_common()),
        "content_ratings": dict(Counter(it.content_rating.value for it in items).most_common()),
        "services": dict(Counter(s for it in items for s in it.streaming_services).most_common()),
        "languages": dict(Counter(it.original_language for it in items).most_common()),
    }


@pytest.mark.parametrize(
    "make", [lambda: Catalog.load("builtin"), lambda: Catalog.from_items(generate_items(3000, 5))]
)
def test_summary_counts_match_an_item_by_item_count(make):
    cat = make()
    got = summary(cat)
    expected = _counted(cat)
    assert {k: got[k] for k in expected} == expected
    for key in ("genres", "content_ratings", "services", "languages"):
        assert list(got[key]) == list(expected[key]), key  # same order, ties included


def test_summary_names_the_catalogs_origin():
    got = summary(Catalog.load("builtin"))
    assert got["name"] == "builtin" and got["source"] == "synthetic"
