"""Amazon Reviews 2023 (McAuley Lab) in its published JSON Lines layout: a reviews file
(`rating`, `parent_asin`, `user_id`, `timestamp` in milliseconds, ...) and an item
metadata file (`parent_asin`, `title`, `categories`, `store`, `price`, ...), from a path.
Items are keyed by parent_asin; reviews of items the metadata lacks are skipped (the
published category files include such reviews) and counted in the source name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import orjson

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions, ItemInfo

REVIEW_FIELDS = ("rating", "parent_asin", "user_id", "timestamp")


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise DataError("no such file; expected an Amazon Reviews 2023 JSONL file", source=path)
    out = []
    with path.open("rb") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                doc = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise DataError(f"line {n}: not valid JSON ({exc})", source=path) from None
            if not isinstance(doc, dict):
                raise DataError(f"line {n}: expected a JSON object", source=path)
            out.append(doc)
    return out


def _item(doc: dict[str, Any], path: Path, n: int) -> ItemInfo:
    asin = doc.get("parent_asin")
    if not isinstance(asin, str) or not asin:
        raise DataError(f"line {n}: field 'parent_asin' missing; expected an item id", source=path)
    categories = doc.get("categories") or []
    if not categories and doc.get("main_category"):
        categories = [doc["main_category"]]
    attributes = {}
    if doc.get("store"):
        attributes["Store"] = str(doc["store"])
    if isinstance(doc.get("price"), int | float):
        attributes["Price"] = f"${doc['price']:.2f}"
    return ItemInfo(
        id=asin,
        title=str(doc.get("title") or asin),
        categories=[str(c) for c in categories],
        attributes=attributes,
    )


def read_amazon(reviews: str | Path, meta: str | Path) -> Interactions:
    reviews, meta = Path(reviews), Path(meta)
    items = {it.id: it for it in (_item(d, meta, n) for n, d in enumerate(_records(meta), 1))}
    order = list(items)
    index = {k: i for i, k in enumerate(order)}
    users: dict[str, int] = {}
    cols: list[list[float]] = [[], [], [], []]
    skipped = 0
    for n, doc in enumerate(_records(reviews), 1):
        missing = [f for f in REVIEW_FIELDS if f not in doc]
        if missing:
            raise DataError(
                f"line {n}: field {missing[0]!r} missing; expected the fields "
                f"{', '.join(REVIEW_FIELDS)}",
                source=reviews,
            )
        i = index.get(doc["parent_asin"])
        if i is None:
            skipped += 1
            continue
        try:
            rating, t = float(doc["rating"]), int(doc["timestamp"]) // 1000
        except (TypeError, ValueError):
            raise DataError(
                f"line {n}: 'rating' and 'timestamp' must be numbers (timestamp in ms)",
                source=reviews,
            ) from None
        cols[0].append(users.setdefault(str(doc["user_id"]), len(users)))
        cols[1].append(i)
        cols[2].append(rating)
        cols[3].append(t)
    note = f" ({skipped} reviews of items without metadata skipped)" if skipped else ""
    return Interactions.build(
        f"amazon:{reviews}{note}",
        [items[k] for k in order],
        list(users),
        np.array(cols[0], dtype=np.int32),
        np.array(cols[1], dtype=np.int32),
        np.array(cols[2], dtype=np.float32),
        np.array(cols[3], dtype=np.int64),
    )
