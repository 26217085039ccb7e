"""Amazon Reviews 2023 (McAuley Lab) in its published JSON Lines layout, as interactions:
a reviews file (`rating`, `parent_asin`, `user_id`, `timestamp` in milliseconds, ...) and
an item metadata file (`parent_asin`, `title`, `categories`, `main_category`, `store`,
`price`, ...), each `.jsonl` or `.jsonl.gz`, from a path. The reviews may instead be a
benchmark CSV (`user_id,parent_asin,rating,timestamp`, `.csv` or `.csv.gz`).

Items are keyed by parent_asin and keep their `categories` path whole (root to leaf;
`main_category` when the path is empty). A price is a number or text ("$12.99"; "—" is
none). `AmazonFilter` keeps the records of a time window, the items of a category, and
optionally users (or users and items) with enough records; every review of an item the
metadata lacks is skipped (the published category files include such reviews) and
counted in the source name. The items are those with at least one kept record, so the
candidate pool is the data set's own items, as AgenticRec's table counts them.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import orjson

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import CategoryShape, Interactions, ItemInfo

REVIEW_FIELDS = ("rating", "parent_asin", "user_id", "timestamp")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def open_jsonl(path: Path) -> IO[bytes]:
    """A JSONL file, gunzipped when its name ends in .gz."""
    if path.suffix == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]  # a GzipFile reads bytes
    return path.open("rb")


def jsonl_records(path: Path, what: str = "JSONL file") -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) per non-blank line; DataError naming the file and line."""
    if not path.is_file():
        raise DataError(f"does not exist; expected an Amazon Reviews 2023 {what}", source=path)
    with open_jsonl(path) as f:
        try:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    doc = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    raise DataError(
                        f"is not JSON ({exc}); expected one object per line",
                        source=path,
                        record=f"line {n}",
                    ) from None
                if not isinstance(doc, dict):
                    raise DataError(
                        "is not a JSON object; expected one object per line",
                        source=path,
                        record=f"line {n}",
                    )
                yield n, doc
        except (OSError, EOFError) as exc:  # a damaged or truncated .gz
            raise DataError(f"cannot be read ({exc}); expected a whole file", source=path) from None


def csv_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) of a benchmark CSV (`user_id,parent_asin,rating,timestamp`, the
    McAuley Lab's rating_only files, e.g. its 5-core ones)."""
    if not path.is_file():
        raise DataError("does not exist; expected an Amazon Reviews 2023 CSV file", source=path)
    with open_jsonl(path) as f, io.TextIOWrapper(f, encoding="utf-8", newline="") as text:
        try:
            for n, row in enumerate(csv.DictReader(text), start=2):
                yield n, {k: v for k, v in row.items() if k is not None}
        except (OSError, EOFError, UnicodeDecodeError, csv.Error) as exc:
            raise DataError(
                f"cannot be read ({exc}); expected a whole CSV file", source=path
            ) from None


def parse_price(value: Any) -> float | None:
    """A price given as a number or as text ("$1,299.00", "from $5"); None for "—" or null."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value >= 0 else None
    if isinstance(value, str):
        m = _NUMBER.search(value.replace(",", ""))
        return float(m.group()) if m else None
    return None


def parse_details(value: Any) -> dict[str, Any]:
    """`details` as a dict: the published files hold a dict or a JSON string of one."""
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return {}
    return value if isinstance(value, dict) else {}


def category_path(doc: dict[str, Any]) -> list[str]:
    """The item's category path, root to leaf; [main_category] when the path is empty."""
    path = [str(c).strip() for c in doc.get("categories") or [] if str(c).strip()]
    if not path and str(doc.get("main_category") or "").strip():
        path = [str(doc["main_category"]).strip()]
    return path


@dataclass(frozen=True)
class AmazonFilter:
    """Which reviews to keep. Times are unix seconds, `since` inclusive, `until` exclusive.

    `categories`: keep items with one of these names anywhere in their category path or as
    their main_category (case ignored). `min_user`: then drop users with fewer records, once.
    `kcore`: then repeatedly drop users and items with fewer records until none has fewer.
    """

    since: int | None = None
    until: int | None = None
    categories: tuple[str, ...] = ()
    min_user: int | None = None
    kcore: int | None = None

    def keeps_time(self, t: int) -> bool:
        return (self.since is None or t >= self.since) and (self.until is None or t < self.until)

    def keeps_item(self, doc: dict[str, Any]) -> bool:
        if not self.categories:
            return True
        names = {c.casefold() for c in category_path(doc)}
        names.add(str(doc.get("main_category") or "").strip().casefold())
        return any(c.casefold() in names for c in self.categories)


def _item(doc: dict[str, Any], asin: str) -> ItemInfo:
    attributes = {}
    if doc.get("store"):
        attributes["Store"] = str(doc["store"])
    price = parse_price(doc.get("price"))
    if price is not None:
        attributes["Price"] = f"${price:.2f}"
    return ItemInfo(
        id=asin,
        title=str(doc.get("title") or "").strip() or asin,
        categories=category_path(doc),
        attributes=attributes,
    )


def _reviews(path: Path, keep: AmazonFilter) -> tuple[list[tuple[str, str, float, int]], int]:
    """(user, item, rating, seconds) of the reviews in the window; and how many were outside."""
    rows: list[tuple[str, str, float, int]] = []
    outside = 0
    lines = csv_records(path) if ".csv" in path.suffixes else jsonl_records(path, "reviews file")
    for n, doc in lines:
        missing = [f for f in REVIEW_FIELDS if f not in doc]
        if missing:
            raise DataError(
                f"field {missing[0]!r} missing; expected the fields {', '.join(REVIEW_FIELDS)}",
                source=path,
                record=f"line {n}",
            )
        try:
            rating, t = float(doc["rating"]), int(float(doc["timestamp"])) // 1000
        except (TypeError, ValueError):
            raise DataError(
                "'rating' and 'timestamp' must be numbers (timestamp in ms)",
                source=path,
                record=f"line {n}",
            ) from None
        if keep.keeps_time(t):
            rows.append((str(doc["user_id"]), str(doc["parent_asin"]), rating, t))
        else:
            outside += 1
    return rows, outside


def _items(
    path: Path, wanted: set[str], keep: AmazonFilter
) -> tuple[dict[str, ItemInfo], set[str]]:
    """The wanted items of the metadata that pass the category filter (the first line of an
    id), and the wanted ids the category filter left out."""
    items: dict[str, ItemInfo] = {}
    other: set[str] = set()
    for n, doc in jsonl_records(path, "meta_<Category>.jsonl file"):
        asin = doc.get("parent_asin")
        if not isinstance(asin, str) or not asin:
            raise DataError(
                "field 'parent_asin' missing; expected an item id", source=path, record=f"line {n}"
            )
        if asin not in wanted or asin in items or asin in other:
            continue
        if keep.keeps_item(doc):
            items[asin] = _item(doc, asin)
        else:
            other.add(asin)
    return items, other


def _min_records(
    rows: list[tuple[str, str, float, int]], user_min: int, item_min: int
) -> list[tuple[str, str, float, int]]:
    """Drop users (and items) with fewer records, repeating while anything drops."""
    while True:
        users: dict[str, int] = {}
        items: dict[str, int] = {}
        for u, i, _, _ in rows:
            users[u] = users.get(u, 0) + 1
            items[i] = items.get(i, 0) + 1
        kept = [r for r in rows if users[r[0]] >= user_min and items[r[1]] >= item_min]
        if len(kept) == len(rows) or item_min <= 1:
            return kept
        rows = kept


def _note(outside: int, other: int, no_meta: int) -> str:
    """What the filters dropped, for the source name."""
    parts = []
    if outside:
        parts.append(f"{outside} reviews outside the time window")
    if other:
        parts.append(f"{other} reviews of items outside the categories")
    if no_meta:
        parts.append(f"{no_meta} reviews of items without metadata skipped")
    return f" ({'; '.join(parts)})" if parts else ""


def read_amazon(
    reviews: str | Path, meta: str | Path, keep: AmazonFilter | None = None
) -> Interactions:
    """The reviews as interactions (unix seconds), filtered by `keep` (default: all)."""
    reviews, meta, keep = Path(reviews), Path(meta), keep or AmazonFilter()
    rows, outside = _reviews(reviews, keep)
    items, left_out = _items(meta, {r[1] for r in rows}, keep)
    other = sum(1 for r in rows if r[1] in left_out)
    no_meta = sum(1 for r in rows if r[1] not in items and r[1] not in left_out)
    rows = [r for r in rows if r[1] in items]
    if keep.min_user:
        rows = _min_records(rows, keep.min_user, 1)
    if keep.kcore:
        rows = _min_records(rows, keep.kcore, keep.kcore)
    users: dict[str, int] = {}
    index: dict[str, int] = {}
    cols: list[list[float]] = [[], [], [], []]
    for u, i, rating, t in rows:
        cols[0].append(users.setdefault(u, len(users)))
        cols[1].append(index.setdefault(i, len(index)))
        cols[2].append(rating)
        cols[3].append(t)
    return Interactions.build(
        f"amazon:{reviews}{_note(outside, other, no_meta)}",
        [items[i] for i in index],
        list(users),
        np.array(cols[0], dtype=np.int32),
        np.array(cols[1], dtype=np.int32),
        np.array(cols[2], dtype=np.float32),
        np.array(cols[3], dtype=np.int64),
        CategoryShape.PATH,
    )
