"""Amazon Reviews 2023 product metadata (`meta_<Category>.jsonl[.gz]`) as choice items.

The second item source of stream suites (BIEL's own data). Each line is one product;
the fields read are `parent_asin` (the id), `title`, `categories` (the category path;
`main_category` when it is empty), `average_rating` (1-5 stars, kept on the 0-10 scale
as ×2), `rating_number`, `price`, `store`, `features`, `description` and
`details["Date First Available"]` (its year). The title is kept whole (BIEL's scoring
payload and prompt carry it uncut). A product without an id or a title is
skipped and counted; a line that is not a JSON object is an error naming the file and
line. The data is read from a path the user gives: nothing of it ships.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taurec.catalog.amazon import category_path, jsonl_records, parse_details, parse_price
from taurec.catalog.choice_items import ChoiceItem, shorten

_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


@dataclass
class ProductLoad:
    items: list[ChoiceItem]
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count


def _year(details: Any) -> int | None:
    m = _YEAR.search(str(parse_details(details).get("Date First Available", "")))
    return int(m.group()) if m else None


def product_item(record: dict[str, Any]) -> ChoiceItem | str:
    """One metadata record as a choice item, or the reason it is skipped."""
    asin = record.get("parent_asin") or record.get("asin")
    title = str(record.get("title") or "").strip()
    if not asin:
        return "no parent_asin"
    if not title:
        return "no title"
    path = category_path(record)
    rating = record.get("average_rating")
    text = " ".join(str(d) for d in record.get("description") or [] if d) or " ".join(
        str(f) for f in record.get("features") or [] if f
    )
    return ChoiceItem(
        id=str(asin),
        title=title,  # whole, as BIEL shows and scores it
        categories=path,
        year=_year(record.get("details")),
        rating=min(10.0, float(rating) * 2) if isinstance(rating, int | float) else None,
        rating_count=record.get("rating_number")
        if isinstance(record.get("rating_number"), int)
        else None,
        maker=str(record["store"]) if record.get("store") else None,
        keywords=[
            shorten(str(f), 60) for f in (record.get("features") or [])[:5] if str(f).strip()
        ],
        price=parse_price(record.get("price")),
        description=shorten(text),
    )


def load_products(path: str | Path, *, limit: int | None = None) -> ProductLoad:
    """The products of one metadata file (first `limit` kept, if given); duplicates of an
    id keep the first."""
    load = ProductLoad(items=[])
    seen: set[str] = set()
    for _n, record in jsonl_records(Path(path), "meta_*.jsonl file"):
        item = product_item(record)
        if isinstance(item, str):
            load.skipped[item] = load.skipped.get(item, 0) + 1
            continue
        if item.id in seen:
            load.skipped["duplicate id"] = load.skipped.get("duplicate id", 0) + 1
            continue
        seen.add(item.id)
        load.items.append(item)
        if limit is not None and len(load.items) >= limit:
            break
    return load
