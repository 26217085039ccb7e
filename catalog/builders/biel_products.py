"""BIEL's products: its `meta_N.json` files, the ids its database gives them, their items.

BIEL keeps one Amazon Reviews 2023 metadata object per file
(`database_creation/benchmark_metadata/meta_N.json`). Its database ids come from two
steps: `database_creation/upload_to_hf.py` writes the files as JSONL in
`sorted(glob("meta_*.json"))` order (by name, so meta_0, meta_1, meta_10, meta_100, ...),
and `database/populate_database.py` inserts each line with an AUTOINCREMENT id from 1,
upserting by `parent_asin` (else `asin`): a repeated ASIN keeps its first id, takes the
later record's fields, and is linked to the categories of both. That is the default id
rule here; BIEL's `products.parquet`, when given, is the id ↔ ASIN map instead.

Category names follow `extract_categories` of populate_database.py, for the fields an
Amazon Reviews 2023 record has: the levels of `categories` below the top two (the last
level when the path has two or fewer), else `main_category`; names whose canonical key
(lower-case words without "and" or "&", a trailing "s" dropped from words longer than 4
letters, sorted) is the same are merged into the shortest.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson
from pydantic import ValidationError

from taurec.catalog.builders.amazon_products import product_item
from taurec.catalog.choice_items import ChoiceItem, shorten
from taurec.catalog.errors import DataError, from_validation_error

META_FILES: Final = "meta_*.json"
META_FOLDER: Final = (
    "BIEL's folder of meta_N.json files (database_creation/benchmark_metadata), one "
    "Amazon Reviews 2023 metadata object each"
)
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_WORDS = re.compile(r"[^a-zA-Z0-9]+")
_STOPWORDS = frozenset({"and", "&"})


def meta_files(folder: Path) -> list[Path]:
    """The folder's meta_*.json files in BIEL's order: by name, as strings compare."""
    if not folder.is_dir():
        raise DataError(f"is not a folder; expected {META_FOLDER}", source=folder)
    files = sorted(folder.glob(META_FILES), key=lambda p: p.name)
    if not files:
        raise DataError(f"holds no meta_*.json file; expected {META_FOLDER}", source=folder)
    return files


def read_meta(path: Path) -> dict[str, Any]:
    try:
        record = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise DataError(
            f"is not JSON ({exc}); expected one Amazon Reviews 2023 metadata object",
            source=path,
        ) from None
    if not isinstance(record, dict):
        raise DataError(
            "is not a JSON object; expected one Amazon Reviews 2023 metadata object",
            source=path,
        )
    return record


def _word(token: str) -> str:
    token = _NOT_ALNUM.sub("", token.lower().strip())
    return token[:-1] if len(token) > 4 and token.endswith("s") else token


def canonical_key(name: str) -> str:
    """BIEL's key for merging similar category names ('Racks & Displays' and 'Rack and
    Display' share 'display rack')."""
    words = (_word(t) for t in _WORDS.split(name.lower()) if t and t not in _STOPWORDS)
    return " ".join(sorted(w for w in words if w and w not in _STOPWORDS))


def category_names(record: Mapping[str, Any]) -> frozenset[str]:
    """The category names BIEL links a product to (see the module docstring)."""
    path = record.get("categories")
    levels = [str(x).strip() for x in path if x is not None] if isinstance(path, list) else []
    levels = [x for x in levels if x]
    if len(levels) > 2:
        raw = levels[2:]
    elif levels:
        raw = levels[-1:]
    elif record.get("main_category"):
        raw = [str(record["main_category"]).strip()]
    else:
        raw = []
    merged: dict[str, set[str]] = {}
    for name in raw:
        key = canonical_key(name)
        if key:
            merged.setdefault(key, set()).add(name)
    # shortest first, then case-insensitively; the exact string breaks what is left of a tie
    return frozenset(min(names, key=lambda s: (len(s), s.lower(), s)) for names in merged.values())


@dataclass
class Product:
    """One product of BIEL's database: its id, and the record its row holds."""

    id: int
    asin: str | None
    record: dict[str, Any]  # the last record read for this id (BIEL's upsert overwrites)
    source: str  # where that record was read, for errors
    names: set[str] = field(default_factory=set)  # category names of all its records

    def take(self, record: dict[str, Any], source: str) -> None:
        self.record, self.source = record, source
        self.names |= category_names(record)


def _asin(record: Mapping[str, Any]) -> str | None:
    value = record.get("parent_asin") or record.get("asin")
    return str(value) if value else None


def number_products(
    records: Iterable[tuple[str, dict[str, Any]]], ids: Mapping[str, int] | None = None
) -> tuple[dict[int, Product], dict[str, int]]:
    """BIEL's product ids for (source, record) pairs in BIEL's order: AUTOINCREMENT from 1,
    a repeated ASIN keeping its first id; or, with `ids` (products.parquet's ASIN → id),
    that map, a record whose ASIN it lacks being skipped. Also the skipped counts."""
    products: dict[int, Product] = {}
    by_asin: dict[str, Product] = {}
    skipped: dict[str, int] = {}
    next_id = 1
    for source, record in records:
        asin = _asin(record)
        product = by_asin.get(asin) if asin is not None else None
        if product is None:
            if ids is not None:
                if asin is None or asin not in ids:
                    reason = "no ASIN" if asin is None else "ASIN not in products.parquet"
                    skipped[reason] = skipped.get(reason, 0) + 1
                    continue
                pid = ids[asin]
            else:
                pid, next_id = next_id, next_id + 1
            product = products[pid] = Product(id=pid, asin=asin, record=record, source=source)
            if asin is not None:
                by_asin[asin] = product
        product.take(record, source)
    return products, skipped


def biel_price(value: Any) -> float | None:
    """The price as BIEL's database stores it (a number, or a string parsed with its commas
    removed); None when absent, unparsable or negative."""
    price: float | None = None
    if isinstance(value, int | float):
        price = float(value)
    elif isinstance(value, str):
        try:
            price = float(value.replace(",", ""))
        except ValueError:
            price = None
    return price if price is not None and math.isfinite(price) and price >= 0 else None


def _first_description(record: Mapping[str, Any]) -> str:
    text = record.get("description")
    if isinstance(text, list):
        text = text[0] if text else ""
    return str(text).strip() if isinstance(text, str) and text else ""


def biel_item(product: Product) -> ChoiceItem:
    """The product as a choice item: id = BIEL's product id, title (BIEL's "Untitled" when
    it has none), the category path, rating ×2 (0-10), votes, store, price, and the first
    description entry (else the title) cut to the choice item's length."""
    record = product.record
    title = str(record.get("title") or "").strip() or "Untitled"
    try:
        base = product_item({**record, "parent_asin": str(product.id), "title": title})
        if isinstance(base, str):  # cannot happen: the id and the title are set above
            raise DataError(base, source=product.source)
        return ChoiceItem.model_validate(
            {
                **base.model_dump(),
                "price": biel_price(record.get("price")),
                "description": shorten(_first_description(record) or title),
            }
        )
    except ValidationError as exc:
        raise from_validation_error(exc, source=product.source, record=None) from None
