"""The values a catalog holds for each item field, for a user that answers a question
about a slot from the catalog's values (UserSimCRS's `get_possible_property_values`)."""

from __future__ import annotations

from taurec.catalog.store import Catalog


class SlotValues:
    """Every value the catalog holds for an item field, sorted, read once per field."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._values: dict[str, list[str]] = {}

    def of(self, field: str) -> list[str]:
        if field not in self._values:
            found: set[str] = set()
            for item in self.catalog.items:
                value = item.release_date.year if field == "year" else getattr(item, field, None)
                found.update(
                    map(str, value if isinstance(value, list) else [value] if value else [])
                )
            self._values[field] = sorted(found)
        return self._values[field]
