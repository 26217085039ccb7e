"""The text of `candidates_analyze`: the candidates grouped by category, then by price
(AgenticRec App. B: "by category or price"; we show both, category first).

By category: where the data's categories are a hierarchy path (`Interactions.category_shape`), an
item is listed under its full leaf path ("CDs & Vinyl > Rock > Classic Rock"); where
they are flat labels (genres), under each of its labels, so an item with two genres
appears twice and no made-up path ("Comedy > Drama") is ever shown. Groups are sorted
by name, items in the order shown to the agent.

By price: `PRICE_BANDS` (lower bound inclusive) read from `attributes["Price"]`
("$12.99"), plus "Price unknown" for an item without a readable price; the section is
left out when no candidate has a price (MovieLens, the synthetic data).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from taurec.catalog.interactions import CategoryShape, ItemInfo

TITLE_CHARS: Final = 30
UNCATEGORISED: Final = "Uncategorised"
PRICE_UNKNOWN: Final = "Price unknown"
#: (lower bound in dollars, label); a price belongs to the last band whose bound it reaches.
PRICE_BANDS: Final[tuple[tuple[float, str], ...]] = (
    (0.0, "Under $10"),
    (10.0, "$10–$25"),
    (25.0, "$25–$50"),
    (50.0, "$50–$100"),
    (100.0, "$100 and over"),
)
SETTINGS: Final = {
    "candidate_groups": "hierarchical categories by full leaf path; flat labels (genres) "
    "by each label, an item listed under every one of its labels",
    "candidate_price_bands": "under $10, $10-25, $25-50, $50-100, $100 and over (lower "
    "bound inclusive), price unknown; the section is omitted when no candidate has a price",
}


def _short(title: str) -> str:
    return title if len(title) <= TITLE_CHARS else title[:TITLE_CHARS] + "..."


def category_groups(item: ItemInfo, shape: CategoryShape) -> list[str]:
    """The category groups `item` is listed under."""
    cats = [c.strip() for c in item.categories if c.strip()]
    if not cats:
        return [UNCATEGORISED]
    if shape is CategoryShape.PATH:
        return [" > ".join(cats)]
    return list(dict.fromkeys(cats))  # each label once, in the item's order


def price_of(item: ItemInfo) -> float | None:
    """The item's price in dollars from `attributes["Price"]` ("$1,234.50"); None when it
    has none or it does not read as a non-negative number."""
    raw = item.attributes.get("Price", "").strip().removeprefix("$").replace(",", "")
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def price_band(price: float | None) -> str:
    if price is None:
        return PRICE_UNKNOWN
    return [label for bound, label in PRICE_BANDS if price >= bound][-1]


def _section(title: str, groups: dict[str, list[str]], order: Sequence[str]) -> list[str]:
    lines = [title]
    for name in order:
        lines += [f"- {name}:", *groups[name]]
    return lines


def analyze_candidates(candidates: Sequence[ItemInfo], shape: CategoryShape) -> str:
    """The analysis of `candidates`, numbered from 1 in the order given."""
    by_category: dict[str, list[str]] = {}
    by_price: dict[str, list[str]] = {}
    priced = False
    for n, item in enumerate(candidates, 1):
        line = f"  – Item {n}: [{_short(item.title)}]"
        for group in category_groups(item, shape):
            by_category.setdefault(group, []).append(line)
        price = price_of(item)
        priced = priced or price is not None
        by_price.setdefault(price_band(price), []).append(line)
    lines = _section("Candidate Analysis by Category:", by_category, sorted(by_category))
    if priced:
        bands = [label for _, label in PRICE_BANDS] + [PRICE_UNKNOWN]
        order = [b for b in bands if b in by_price]
        lines += _section("Candidate Analysis by Price:", by_price, order)
    return "\n".join(lines)
