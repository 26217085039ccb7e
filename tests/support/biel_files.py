"""Small BIEL releases written by the tests: meta_N.json files and parquet tables in
BIEL's layouts, with made-up products, personas and scores.

60 meta files, 59 products (meta_59.json repeats meta_5.json's ASIN with a new title),
over five categories named by BIEL's rule from their paths:

| id | name | products |
| --- | --- | --- |
| 1 | Drinkware | 31 (the mug sets and the tumblers) |
| 2 | Mug Sets | 16 |
| 3 | Tumblers | 15 |
| 4 | Racks & Displays | 22 |
| 5 | Desk Lamps | 6 (pruned: under 15) |

Four personas (rows 0-3); persona 1 has no score. Every (persona 0, 2, 3; category) pair
is scored on all its products, except: persona 3's best in Tumblers is below 60, one
Racks & Displays product has no score for persona 2, and only persona 0 is scored in
Desk Lamps.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from taurec.catalog.builders.biel_data import BielFiles
from taurec.catalog.builders.biel_tables import PERSONA_FIELD

TOP = {
    "mug": ["Home & Kitchen", "Kitchen & Dining", "Drinkware", "Mug Sets"],
    "tumbler": ["Home & Kitchen", "Kitchen & Dining", "Drinkware", "Tumblers"],
    "rack": ["Office Products", "Office Furniture & Lighting", "Racks & Displays"],
    "lamp": ["Office Products", "Office Furniture & Lighting", "Desk Lamps"],
}
KINDS = ["mug"] * 16 + ["tumbler"] * 15 + ["rack"] * 22 + ["lamp"] * 6
CATEGORY_IDS = {
    "Drinkware": 1,
    "Mug Sets": 2,
    "Tumblers": 3,
    "Racks & Displays": 4,
    "Desk Lamps": 5,
}
NAMES = {kind: set(path[2:]) for kind, path in TOP.items()}  # BIEL's names: below the top two
PERSONA_TEXTS = [
    "A retired teacher who hosts tea for the neighbours every Sunday.",
    "A student on a tight budget who drinks coffee on the bus.",
    "A shop owner who arranges displays and loves sturdy steel.",
    "A hiker who wants everything light and unbreakable.",
]
DUPLICATE_OF = 5  # meta_59.json repeats this product's ASIN


def record(k: int) -> dict[str, Any]:
    """Product k's Amazon Reviews 2023 metadata record."""
    kind = KINDS[k]
    return {
        "main_category": "Amazon Home" if kind in ("mug", "tumbler") else "Office Products",
        "title": f"{kind.title()} number {k}",
        "average_rating": round(3.0 + (k % 5) * 0.4, 1),
        "rating_number": 10 + 7 * k,
        "features": [f"{kind} feature {k % 3}", "dishwasher safe" if k % 2 else "steel"],
        "description": [f"A {kind} that is good at being a {kind} ({k})."] if k % 4 else [],
        "price": f"{5 + k * 1.25:.2f}" if k % 6 else "None",
        "images": {"hi_res": [], "large": [], "thumb": [], "variant": []},
        "videos": {"title": [], "url": [], "user_id": []},
        "store": f"Store {k % 4}",
        "categories": TOP[kind],
        "details": orjson.dumps(
            {"Brand": f"Store {k % 4}", "Date First Available": "2019"}
        ).decode(),
        "parent_asin": f"B0{k:08d}",
        "bought_together": None,
        "subtitle": None,
        "author": None,
    }


def write_table(path: Path, columns: dict[str, list[Any]], types: dict[str, Any]) -> Path:
    """A parquet file with these columns (types as pandas' export gives them)."""
    arrays = {name: pa.array(values, type=types.get(name)) for name, values in columns.items()}
    pq.write_table(pa.table(arrays), path)
    return path


def score(persona: int, category: int, product: int) -> float:
    """Made-up scores; persona 3 never reaches 60 in Tumblers."""
    if (persona, category) == (3, 3):
        return float(20 + (product * 13) % 35)
    return float(20 + (product * 37 + persona * 11 + category * 5) % 75) + 0.5 * (product % 2)


def category_members(kinds: dict[int, str]) -> dict[int, list[int]]:
    """Each category's product ids, as BIEL links them."""
    out: dict[int, list[int]] = {}
    for pid, kind in sorted(kinds.items()):
        for name in sorted(NAMES[kind]):
            out.setdefault(CATEGORY_IDS[name], []).append(pid)
    return dict(sorted(out.items()))


@dataclass
class BielRelease:
    root: Path
    files: BielFiles
    ids: dict[str, int]  # ASIN -> BIEL's product id
    members: dict[int, list[int]]  # category id -> product ids


def write_biel(root: Path, personas: str = "jsonl") -> BielRelease:
    """BIEL's files for the products, personas and scores above, under `root`."""
    meta = root / "benchmark_metadata"
    meta.mkdir(parents=True)
    records = {f"meta_{k}.json": record(k) for k in range(len(KINDS))}
    records[f"meta_{len(KINDS)}.json"] = {**record(DUPLICATE_OF), "title": "Mug, new edition"}
    for name, rec in records.items():
        (meta / name).write_bytes(orjson.dumps(rec, option=orjson.OPT_INDENT_2))
    ids: dict[str, int] = {}
    for name in sorted(records):  # BIEL's order, and its upsert by ASIN
        ids.setdefault(str(records[name]["parent_asin"]), len(ids) + 1)
    members = category_members({ids[f"B0{k:08d}"]: kind for k, kind in enumerate(KINDS)})
    links = [(pid, cid) for cid, pids in members.items() for pid in pids]
    i64 = {k: pa.int64() for k in ("product_id", "category_id", "persona_index", "created_at")}
    write_table(
        root / "product_category.parquet",
        {"product_id": [p for p, _ in links], "category_id": [c for _, c in links]},
        i64,
    )
    rows = [
        (persona, cid, pid, score(persona, cid, pid))
        for persona in (0, 2, 3)
        for cid, pids in sorted(members.items())
        for pid in pids
        if (cid != 5 or persona == 0) and (persona, cid, pid) != (2, 4, members[4][3])
    ]
    write_table(
        root / "persona_scores.parquet",
        {
            "persona_index": [r[0] for r in rows],
            "category_id": [r[1] for r in rows],
            "product_id": [r[2] for r in rows],
            "score": [r[3] for r in rows],
            "reason": ["made up"] * len(rows),
            "model": ["gpt-4o"] * len(rows),
            "created_at": [1_700_000_000] * len(rows),
        },
        i64,
    )
    files = BielFiles(
        products=meta,
        personas=write_personas(root, personas),
        scores=root / "persona_scores.parquet",
        links=root / "product_category.parquet",
    )
    return BielRelease(root, files, ids, members)


def write_personas(root: Path, layout: str) -> Path:
    """The persona rows as a .jsonl, .json, .parquet file or a folder of two shards."""
    rows = [{"persona": f"p{n}", PERSONA_FIELD: text} for n, text in enumerate(PERSONA_TEXTS)]
    if layout == "jsonl":
        path = root / "personas.jsonl"
        path.write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\n")
    elif layout == "json":
        path = root / "personas.json"
        path.write_bytes(orjson.dumps(rows))
    elif layout == "parquet":
        path = write_table(root / "personas.parquet", {PERSONA_FIELD: PERSONA_TEXTS}, {})
    else:
        path = root / "personas"
        path.mkdir()
        write_table(path / "train-00001-of-00002.parquet", {PERSONA_FIELD: PERSONA_TEXTS[2:]}, {})
        write_table(path / "train-00000-of-00002.parquet", {PERSONA_FIELD: PERSONA_TEXTS[:2]}, {})
    return path


def write_products_table(release: BielRelease, ids: dict[str, int] | None = None) -> Path:
    """BIEL's products.parquet for the release's products (their ids from `ids`, else the
    release's own)."""
    ids = ids or release.ids
    recs = {str(record(k)["parent_asin"]): record(k) for k in range(len(KINDS))}
    asins = sorted(ids, key=lambda a: ids[a])
    return write_table(
        release.root / "products.parquet",
        {
            "id": [ids[a] for a in asins],
            "external_id": asins,
            "title": [recs[a]["title"] for a in asins],
            "main_category": [recs[a]["main_category"] for a in asins],
            "store": [recs[a]["store"] for a in asins],
            "price": [None for _ in asins],
            "raw": [orjson.dumps(recs[a]).decode() for a in asins],
        },
        {"id": pa.int64(), "price": pa.float64()},
    )


def write_category_names(release: BielRelease, names: dict[int, str] | None = None) -> Path:
    names = names or {cid: name for name, cid in CATEGORY_IDS.items()}
    return write_table(
        release.root / "categories.parquet",
        {"id": list(names), "name": list(names.values())},
        {"id": pa.int64()},
    )
