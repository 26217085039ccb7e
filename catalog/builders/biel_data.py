"""BIEL's released data as choice items, categories, personas and utilities.

`load_biel_data(BielFiles(...))` reads BIEL's files as BIEL writes them (see
biel_tables.py for the tables, biel_products.py for the products and their ids) and
checks that they fit together: every product of the link table is a product read, every
category and product of the score table is one the link table knows.

- Categories are those of `product_category.parquet`; as BIEL prunes, one holding fewer
  than 15 products is dropped. A category is named by `categories.parquet` when given;
  else by BIEL's `extract_categories` rule over its products: the one category name all
  of them carry, or, when they share several, the one carried by exactly these products.
  A category the rule cannot name is an error that asks for `categories.parquet` (its
  name is what BIEL hashes to sample choice sets, so it is never guessed).
- Personas are those with a score in a kept category: `Persona(id="biel-<index>")`,
  described by their row of Tianyi-Lab/Personas, with no preference model.
- Utilities are the score table's, by (persona index, category id, product id).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson

from taurec.catalog.builders.biel_products import (
    Product,
    biel_item,
    meta_files,
    number_products,
    read_meta,
)
from taurec.catalog.builders.biel_tables import (
    ProductTable,
    ScoreKey,
    read_category_names,
    read_links,
    read_personas,
    read_product_table,
    read_scores,
)
from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.choice_sets import MIN_CATEGORY_ITEMS, Category
from taurec.catalog.errors import DataError
from taurec.catalog.personas import Persona

NAMES_HINT: Final = "pass BIEL's categories.parquet (--biel-category-names)"
IDS_HINT: Final = (
    "expected the ids of BIEL's database: pass its products.parquet (--biel-product-ids) "
    "when that database was not built from these meta files"
)


@dataclass(frozen=True)
class BielFiles:
    """Where BIEL's files are: the four needed, and the two optional tables."""

    products: Path  # folder of meta_N.json
    personas: Path  # Tianyi-Lab/Personas, split train
    scores: Path  # persona_scores.parquet
    links: Path  # product_category.parquet
    product_ids: Path | None = None  # products.parquet
    category_names: Path | None = None  # categories.parquet


def persona_id(index: int) -> str:
    return f"biel-{index}"


def category_id(number: int) -> str:
    return f"biel:{number}"


@dataclass(frozen=True)
class BielData:
    """What a stream suite is built from, and what was read to get it."""

    items: list[ChoiceItem]  # the products of the kept categories
    categories: list[Category]  # kept, by BIEL id
    personas: list[Persona]  # with a score in a kept category, by index
    scores: dict[ScoreKey, float]  # of the kept categories
    category_numbers: dict[str, int]  # Category.id -> BIEL's category id
    persona_numbers: dict[str, int]  # Persona.id -> persona index
    products_read: int  # distinct products with metadata
    products_from_table: int  # of them, taken from products.parquet's raw records
    products_skipped: dict[str, int]
    categories_read: int
    scored_pairs: int  # (persona, category) pairs with scores, kept categories

    def summary(self) -> str:
        skipped = "".join(f", {n} skipped ({why})" for why, n in self.products_skipped.items())
        if self.products_from_table:
            skipped += f", {self.products_from_table} from products.parquet's raw records"
        pruned = self.categories_read - len(self.categories)
        return (
            f"read {self.products_read} products{skipped}, {self.categories_read} categories "
            f"({len(self.categories)} kept, {pruned} pruned under {MIN_CATEGORY_ITEMS} products), "
            f"{len(self.personas)} personas and {self.scored_pairs} scored (persona, category) "
            "pairs"
        )


def _products(files: BielFiles) -> tuple[dict[int, Product], dict[str, int], ProductTable | None]:
    records = ((str(p), read_meta(p)) for p in meta_files(files.products))
    if files.product_ids is None:
        return *number_products(records), None
    table = read_product_table(files.product_ids)
    return *number_products(records, table.ids_by_asin()), table


def _members(links_file: Path, known: set[int]) -> dict[int, set[int]]:
    members: dict[int, set[int]] = defaultdict(set)
    for row, (pid, cid) in enumerate(read_links(links_file)):
        if pid not in known:
            raise DataError(
                f"is {pid}, not one of the {len(known)} products read; {IDS_HINT}",
                source=links_file,
                record=f"row {row}",
                field="product_id",
            )
        members[cid].add(pid)
    return dict(members)


def _fill_from_raw(products: dict[int, Product], table: ProductTable, needed: set[int]) -> None:
    """Products of kept categories with no meta file take products.parquet's raw record."""
    missing = needed - products.keys()
    raws = table.raw_records(missing)
    for pid in sorted(missing):
        if pid not in raws:
            raise DataError(
                f"product {pid} (ASIN {table.asins[pid]}) is in a kept category but has no "
                "meta_*.json file and no raw record; expected its metadata in one of them",
                source=table.path,
            )
        try:
            record = orjson.loads(raws[pid])
        except orjson.JSONDecodeError as exc:
            raise DataError(
                f"is not JSON ({exc}); expected a product's metadata",
                source=table.path,
                record=f"id {pid}",
                field="raw",
            ) from None
        if not isinstance(record, dict):
            raise DataError(
                "is not a JSON object; expected a product's metadata",
                source=table.path,
                record=f"id {pid}",
                field="raw",
            )
        source = f"{table.path} (id {pid})"
        products[pid] = Product(id=pid, asin=table.asins[pid], record=record, source=source)
        products[pid].take(record, source)


def name_by_rule(
    members: dict[int, set[int]], products: dict[int, Product], links_file: Path
) -> dict[int, str]:
    """Each category's name by BIEL's rule (see the module docstring)."""
    holders: dict[str, set[int]] = defaultdict(set)
    for pid, product in products.items():
        for name in product.names:
            holders[name].add(pid)
    out: dict[int, str] = {}
    for cid, pids in sorted(members.items()):
        shared = set.intersection(*(products[p].names for p in pids))  # a new set
        if len(shared) > 1:
            shared = {n for n in shared if holders[n] == pids}
        if len(shared) != 1:
            what = "no category name" if not shared else f"the names {sorted(shared)}"
            raise DataError(
                f"category_id {cid}: its {len(pids)} products share {what} by BIEL's "
                f"rule; {NAMES_HINT}",
                source=links_file,
            )
        out[cid] = shared.pop()
    return out


def _named(
    files: BielFiles, members: dict[int, set[int]], products: dict[int, Product]
) -> dict[int, str]:
    if files.category_names is None:
        names = name_by_rule(members, products, files.links)
    else:
        table = read_category_names(files.category_names)
        unknown = next((c for c in sorted(members) if c not in table), None)
        if unknown is not None:
            raise DataError(
                f"names no category {unknown} of {files.links}; expected every linked "
                "category's id and name",
                source=files.category_names,
            )
        names = {cid: table[cid] for cid in members}
    seen: dict[str, int] = {}
    for cid, name in sorted(names.items()):
        if name in seen:
            raise DataError(
                f"categories {seen[name]} and {cid} are both named {name!r}; {NAMES_HINT}",
                source=files.category_names or files.links,
            )
        seen[name] = cid
    return names


def _kept_scores(
    files: BielFiles, members: dict[int, set[int]], kept: set[int], known: set[int]
) -> dict[ScoreKey, float]:
    out = {}
    for key, score in read_scores(files.scores).items():
        _, cid, pid = key
        if cid not in members:
            what = f"category_id {cid}, which {files.links.name} does not link"
        elif pid not in known:
            what = f"product_id {pid}, not one of the {len(known)} products read"
        else:
            if cid in kept:
                out[key] = score
            continue
        raise DataError(
            f"names {what}; expected ids of the same database",
            source=files.scores,
            record=f"key {key}",
        )
    return out


def load_biel_data(files: BielFiles) -> BielData:
    """BIEL's files as items, kept categories, personas and utilities (see the module
    docstring); a `DataError` names the first file that does not fit."""
    products, skipped, table = _products(files)
    from_files = len(products)
    known = set(table.asins) if table is not None else set(products)
    members = _members(files.links, known)
    kept = {cid: pids for cid, pids in members.items() if len(pids) >= MIN_CATEGORY_ITEMS}
    needed = set().union(*kept.values()) if kept else set()
    if table is not None:
        _fill_from_raw(products, table, needed)
    names = _named(files, kept, products)
    scores = _kept_scores(files, members, set(kept), known)
    indices = {p for p, _, _ in scores}
    texts = read_personas(files.personas, indices)
    categories = [
        Category(id=category_id(cid), name=names[cid], item_ids=[str(p) for p in sorted(pids)])
        for cid, pids in sorted(kept.items())
    ]
    return BielData(
        items=[biel_item(products[pid]) for pid in sorted(needed)],
        categories=categories,
        personas=[
            Persona(id=persona_id(i), description=texts[i], preferences=None)
            for i in sorted(indices, key=persona_id)  # in id order, as a suite's pool keeps them
        ],
        scores=scores,
        category_numbers={category_id(cid): cid for cid in kept},
        persona_numbers={persona_id(i): i for i in indices},
        products_read=len(products),
        products_from_table=len(products) - from_files,
        products_skipped=skipped,
        categories_read=len(members),
        scored_pairs=len({(p, c) for p, c, _ in scores}),
    )
