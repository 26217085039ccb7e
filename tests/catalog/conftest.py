"""Small catalogs built in the tests themselves: `make_item` and `make_catalog`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import pytest

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog

ItemFactory = Callable[..., Item]
CatalogFactory = Callable[..., Catalog]


def build_item(item_id: str, **fields: Any) -> Item:
    """A valid item; every field not given gets a plain default."""
    record: dict[str, Any] = {
        "id": item_id,
        "title": f"Title {item_id}",
        "release_date": date(2000, 1, 1),
        "runtime": 100,
        "genres": ["Drama"],
        "rating": 6.0,
        "vote_count": 100,
        "content_rating": "PG",
    }
    record.update(fields)
    return Item.model_validate(record)


@pytest.fixture(scope="session")
def make_item() -> ItemFactory:
    return build_item


@pytest.fixture(scope="session")
def make_catalog() -> CatalogFactory:
    """`make_catalog(item, ...)`: a catalog of exactly those items, in that order."""

    def make(*items: Item) -> Catalog:
        return Catalog.from_items(items)

    return make
