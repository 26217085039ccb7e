"""A small seeded Amazon Reviews 2023 category in the published layout, written by tests
(nothing of Amazon's is downloaded or committed).

`write_category` writes `<Name>.jsonl` (reviews) and `meta_<Name>.jsonl` (`.gz` when
asked): items with real-looking category paths (root to leaf) of the category and some
of another, prices as numbers, text ("$12.99", "—") and null, `details` as dicts and as
JSON strings, millisecond timestamps spread over 2022-2024 (so AgenticRec's window
2022-10-01..2023-10-01 keeps about half), and reviews of items the metadata lacks.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import orjson

CD_PATHS = (
    ["CDs & Vinyl", "Rock", "Classic Rock"],
    ["CDs & Vinyl", "Rock", "Hard Rock & Metal"],
    ["CDs & Vinyl", "Jazz", "Bebop"],
    ["CDs & Vinyl", "Classical", "Symphonies"],
    ["CDs & Vinyl", "Pop"],
    ["CDs & Vinyl", "Country", "Americana"],
)
OTHER_PATHS = (["Movies & TV", "Movies", "Drama"], ["Movies & TV", "TV"])
MAIN = ("Digital Music", "Movies & TV", "All Music")
PRICES: tuple[Any, ...] = (12.99, "$8.49", "—", None, 24, "$1,099.00", "from $5.00")
START = int(datetime(2022, 1, 1, tzinfo=UTC).timestamp() * 1000)
END = int(datetime(2024, 3, 1, tzinfo=UTC).timestamp() * 1000)


@dataclass(frozen=True)
class Amazon23Files:
    reviews: Path
    meta: Path
    category: str = "CDs & Vinyl"

    def source(self, options: str = "") -> str:
        """The `amazon:` interaction source of these files, with `;`-separated options."""
        return f"amazon:{self.reviews},{self.meta}" + (f";{options}" if options else "")


def _write(path: Path, docs: list[dict[str, Any]]) -> None:
    blob = b"".join(orjson.dumps(d) + b"\n" for d in docs)
    if path.suffix == ".gz":
        with gzip.open(path, "wb") as f:
            f.write(blob)
    else:
        path.write_bytes(blob)


def _meta(rng: np.random.Generator, k: int, path: list[str]) -> dict[str, Any]:
    details: Any = {"Label": f"Label {k % 7}", "Date First Available": f"May {1 + k % 28}, 2015"}
    if k % 3 == 0:
        details = orjson.dumps(details).decode()  # as some published lines hold it
    return {
        "main_category": MAIN[k % len(MAIN)] if path[0] == "CDs & Vinyl" else "Movies & TV",
        "title": f"{path[-1]} Collection Vol. {k}",
        "average_rating": round(float(rng.uniform(3, 5)), 1),
        "rating_number": int(rng.integers(1, 500)),
        "features": [f"{path[-1]} remastered"],
        "description": [f"Recorded live, volume {k}."],
        "price": PRICES[k % len(PRICES)],
        "images": [],
        "videos": [],
        "store": f"Artist {k % 40}",
        "categories": [] if k % 17 == 0 else path,
        "details": details,
        "parent_asin": f"B0{k:08d}",
        "bought_together": None,
    }


def _review(rng: np.random.Generator, user: str, asin: str) -> dict[str, Any]:
    return {
        "rating": float(rng.integers(1, 6)),
        "title": "Great album",
        "text": "Sounds as good as I remembered.",
        "images": [],
        "asin": asin,
        "parent_asin": asin,
        "user_id": user,
        "timestamp": int(rng.integers(START, END)),
        "helpful_vote": int(rng.integers(0, 4)),
        "verified_purchase": bool(rng.integers(0, 2)),
    }


def write_category(
    folder: Path,
    *,
    name: str = "CDs_and_Vinyl",
    users: int = 300,
    items: int = 160,
    other_items: int = 20,
    missing_items: int = 5,
    seed: int = 0,
    gz: bool = False,
) -> Amazon23Files:
    """Write one seeded category; `other_items` are of another category and
    `missing_items` are reviewed but absent from the metadata."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    meta = [_meta(rng, k, CD_PATHS[k % len(CD_PATHS)]) for k in range(items)]
    meta += [
        _meta(rng, k, OTHER_PATHS[k % len(OTHER_PATHS)]) for k in range(items, items + other_items)
    ]
    asins = [m["parent_asin"] for m in meta]
    asins += [f"B9{k:08d}" for k in range(missing_items)]  # no metadata line
    weights = 1 / np.arange(1, len(asins) + 1) ** 0.6  # a popularity skew
    weights /= weights.sum()
    reviews = []
    for u in range(users):
        user = f"AE{u:026d}"
        n = int(rng.integers(1, 13))
        for i in rng.choice(len(asins), size=n, replace=False, p=weights):
            reviews.append(_review(rng, user, asins[int(i)]))
    suffix = ".jsonl.gz" if gz else ".jsonl"
    files = Amazon23Files(folder / f"{name}{suffix}", folder / f"meta_{name}{suffix}")
    _write(files.reviews, reviews)
    _write(files.meta, list(rng.permutation(np.array(meta, dtype=object))))
    return files


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The objects of a written file (to compute expected figures independently)."""
    blob = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return [orjson.loads(line) for line in blob.splitlines() if line.strip()]


def write_rating_csv(reviews: Path, out: Path) -> Path:
    """The reviews as the McAuley Lab's rating_only benchmark CSV (`.csv` or `.csv.gz`)."""
    rows = ["user_id,parent_asin,rating,timestamp"] + [
        f"{r['user_id']},{r['parent_asin']},{r['rating']},{r['timestamp']}"
        for r in read_lines(reviews)
    ]
    blob = ("\n".join(rows) + "\n").encode()
    out.write_bytes(gzip.compress(blob) if out.suffix == ".gz" else blob)
    return out
