"""BIEL's released tables, read as BIEL writes them.

BIEL (namkoong-lab/interactive-benchmark) exports its SQLite database with
`database/export_to_parquet.py`, one parquet file per table:

- `products.parquet`: id, external_id (the product's parent ASIN), title, main_category,
  store, price, raw (the product's metadata record as a JSON string);
- `categories.parquet`: id, name;
- `product_category.parquet`: product_id, category_id (which products a category holds);
- `persona_scores.parquet`: persona_index, category_id, product_id, score (0-100), reason,
  model, created_at (the cached LLM utilities).

Its personas are the rows of Hugging Face's `Tianyi-Lab/Personas` (split train): a
persona's index is its row number, its description the row's
`Llama-3.1-70B-Instruct_descriptive_persona`. That split is read from a parquet file, a
folder of parquet shards (sorted by name, rows concatenated), a JSONL file or a JSON list.

Every reader checks the columns it reads (present, of the expected type, no empty value)
and raises one `DataError` naming the file, the row and what was expected.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Final

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from taurec.catalog.errors import DataError

PERSONA_FIELD: Final = "Llama-3.1-70B-Instruct_descriptive_persona"
PRODUCTS_TABLE: Final = "BIEL's products.parquet (columns id, external_id, raw)"
CATEGORIES_TABLE: Final = "BIEL's categories.parquet (columns id, name)"
LINKS_TABLE: Final = "BIEL's product_category.parquet (columns product_id, category_id)"
SCORES_TABLE: Final = (
    "BIEL's persona_scores.parquet (columns persona_index, category_id, product_id, score)"
)
PERSONAS: Final = f"rows of Tianyi-Lab/Personas (split train) with a {PERSONA_FIELD!r} field"


class Kind(Enum):
    """What a column holds, and the arrow types that hold it."""

    INT = "integers"
    NUMBER = "numbers"
    TEXT = "text"

    def accepts(self, t: pa.DataType) -> bool:
        if self is Kind.INT:
            return bool(pa.types.is_integer(t))
        if self is Kind.NUMBER:
            return bool(pa.types.is_integer(t) or pa.types.is_floating(t))
        return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


@dataclass(frozen=True)
class Column:
    kind: Kind
    nullable: bool = False  # an empty value is allowed
    optional: bool = False  # the column may be absent


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__


def _parquet(path: Path, expected: str) -> pq.ParquetFile:
    if not path.is_file():
        raise DataError(f"does not exist; expected {expected}", source=path)
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise DataError(
            f"is not a parquet file ({_first_line(exc)}); expected {expected}", source=path
        ) from None


def _checked(
    path: Path, f: pq.ParquetFile, wanted: Mapping[str, Column], expected: str
) -> list[str]:
    """The names of `wanted` present in `f`, each checked for its type."""
    schema = f.schema_arrow
    present = []
    for name, column in wanted.items():
        if name not in schema.names:
            if column.optional:
                continue
            raise DataError(f"has no column {name!r}; expected {expected}", source=path)
        t = schema.field(name).type
        if not (column.kind.accepts(t) or (column.nullable and pa.types.is_null(t))):
            raise DataError(f"column {name!r} holds {t}; expected {column.kind.value}", source=path)
        present.append(name)
    return present


def read_columns(path: Path, wanted: Mapping[str, Column], expected: str) -> dict[str, list[Any]]:
    """The `wanted` columns of a parquet file as lists (an absent optional column is left
    out); an empty value in a column that may not hold one is an error naming its row."""
    f = _parquet(path, expected)
    names = _checked(path, f, wanted, expected)
    try:
        table = f.read(columns=names)
    except (pa.ArrowException, OSError) as exc:
        raise DataError(
            f"cannot be read ({_first_line(exc)}); expected {expected}", source=path
        ) from None
    out = {}
    for name in names:
        values = table.column(name).to_pylist()
        if not wanted[name].nullable:
            row = next((n for n, v in enumerate(values) if v is None), None)
            if row is not None:
                raise DataError(
                    f"is empty; expected {wanted[name].kind.value}",
                    source=path,
                    record=f"row {row}",
                    field=name,
                )
        out[name] = values
    return out


def read_links(path: Path) -> list[tuple[int, int]]:
    """product_category.parquet: (product_id, category_id) per row."""
    cols = read_columns(
        path, {"product_id": Column(Kind.INT), "category_id": Column(Kind.INT)}, LINKS_TABLE
    )
    return list(zip(cols["product_id"], cols["category_id"], strict=True))


def read_category_names(path: Path) -> dict[int, str]:
    """categories.parquet: name per category id (ids and names each unique)."""
    cols = read_columns(path, {"id": Column(Kind.INT), "name": Column(Kind.TEXT)}, CATEGORIES_TABLE)
    out: dict[int, str] = {}
    seen: dict[str, int] = {}
    for row, (cid, name) in enumerate(zip(cols["id"], cols["name"], strict=True)):
        if not name.strip():
            raise DataError(
                "is blank; expected the category's name",
                source=path,
                record=f"row {row}",
                field="name",
            )
        if cid in out or name in seen:
            what = f"id {cid}" if cid in out else f"name {name!r}"
            raise DataError(
                f"repeats {what}; expected each category id and name once",
                source=path,
                record=f"row {row}",
            )
        out[cid] = name
        seen[name] = cid
    return out


@dataclass(frozen=True)
class ProductTable:
    """products.parquet: each product id with its parent ASIN (None when it has none)."""

    path: Path
    asins: dict[int, str | None]
    has_raw: bool

    def ids_by_asin(self) -> dict[str, int]:
        return {asin: pid for pid, asin in self.asins.items() if asin is not None}

    def raw_records(self, ids: set[int]) -> dict[int, str]:
        """The `raw` JSON text of these product ids (those whose raw is not empty)."""
        out: dict[int, str] = {}
        if not self.has_raw or not ids:
            return out
        for batch in pq.ParquetFile(self.path).iter_batches(columns=["id", "raw"]):
            for pid, raw in zip(
                batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True
            ):
                if pid in ids and raw is not None:
                    out[pid] = raw
        return out


def read_product_table(path: Path) -> ProductTable:
    """products.parquet's id ↔ ASIN map (ids unique, each ASIN on one product)."""
    wanted = {
        "id": Column(Kind.INT),
        "external_id": Column(Kind.TEXT, nullable=True),
        "raw": Column(Kind.TEXT, nullable=True, optional=True),
    }
    f = _parquet(path, PRODUCTS_TABLE)
    has_raw = "raw" in _checked(path, f, wanted, PRODUCTS_TABLE)
    cols = read_columns(path, {k: v for k, v in wanted.items() if k != "raw"}, PRODUCTS_TABLE)
    asins: dict[int, str | None] = {}
    owner: dict[str, int] = {}
    for row, (pid, asin) in enumerate(zip(cols["id"], cols["external_id"], strict=True)):
        if pid in asins or (asin is not None and asin in owner):
            what = f"id {pid}" if pid in asins else f"external_id {asin!r}"
            raise DataError(
                f"repeats {what}; expected each product id and ASIN once",
                source=path,
                record=f"row {row}",
            )
        asins[pid] = asin
        if asin is not None:
            owner[asin] = pid
    return ProductTable(path=path, asins=asins, has_raw=has_raw)


#: (persona_index, category_id, product_id)
ScoreKey = tuple[int, int, int]


def read_scores(path: Path) -> dict[ScoreKey, float]:
    """persona_scores.parquet: the score (0-100) per (persona, category, product), each key
    once (it is the table's primary key)."""
    wanted = {
        "persona_index": Column(Kind.INT),
        "category_id": Column(Kind.INT),
        "product_id": Column(Kind.INT),
        "score": Column(Kind.NUMBER),
    }
    cols = read_columns(path, wanted, SCORES_TABLE)
    out: dict[ScoreKey, float] = {}
    rows = zip(*(cols[k] for k in wanted), strict=True)
    for row, (persona, category, product, score) in enumerate(rows):
        key = (persona, category, product)
        if persona < 0:
            raise DataError(
                f"is {persona}; expected a row number of Tianyi-Lab/Personas",
                source=path,
                record=f"row {row}",
                field="persona_index",
            )
        if not (math.isfinite(score) and 0 <= score <= 100):
            raise DataError(
                f"is {score}; expected a utility from 0 to 100",
                source=path,
                record=f"row {row}",
                field="score",
            )
        if key in out:
            raise DataError(
                f"repeats (persona_index, category_id, product_id) {key}; expected each once",
                source=path,
                record=f"row {row}",
            )
        out[key] = float(score)
    return out


def _parquet_rows(path: Path) -> Iterator[Any]:
    shards = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    if not shards:
        raise DataError(
            f"holds no .parquet file; expected the parquet shards of {PERSONAS}", source=path
        )
    for shard in shards:
        f = _parquet(shard, PERSONAS)
        _checked(shard, f, {PERSONA_FIELD: Column(Kind.TEXT, nullable=True)}, PERSONAS)
        for batch in f.iter_batches(columns=[PERSONA_FIELD]):
            yield from batch.column(0).to_pylist()


def _json_rows(path: Path) -> Iterator[Any]:
    try:
        rows = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise DataError(
            f"is not JSON ({exc}); expected a JSON list of {PERSONAS}", source=path
        ) from None
    if not isinstance(rows, list):
        raise DataError(f"is not a JSON list; expected a JSON list of {PERSONAS}", source=path)
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            raise DataError(
                f"is not an object; expected {PERSONAS}", source=path, record=f"row {n}"
            )
        yield row.get(PERSONA_FIELD)


def _jsonl_rows(path: Path, wanted: set[int]) -> Iterator[Any]:
    """One value per non-blank line; only the lines of `wanted` rows are parsed."""
    with path.open("rb") as f:
        n = 0
        for line in f:
            if not line.strip():
                continue
            if n in wanted:
                try:
                    row = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    raise DataError(
                        f"is not JSON ({exc}); expected one of {PERSONAS} per line",
                        source=path,
                        record=f"row {n}",
                    ) from None
                yield row.get(PERSONA_FIELD) if isinstance(row, dict) else None
            else:
                yield None
            n += 1


def read_personas(path: Path, indices: set[int]) -> dict[int, str]:
    """The description of each persona index (a row number of Tianyi-Lab/Personas)."""
    if path.is_dir() or path.suffix == ".parquet":
        rows = _parquet_rows(path)
    elif not path.is_file():
        raise DataError(f"does not exist; expected {PERSONAS}", source=path)
    elif path.suffix == ".jsonl":
        rows = _jsonl_rows(path, indices)
    elif path.suffix == ".json":
        rows = _json_rows(path)
    else:
        raise DataError(
            f"has suffix {path.suffix!r}; expected a .parquet, .jsonl or .json file, or a "
            f"folder of .parquet shards, holding {PERSONAS}",
            source=path,
        )
    out: dict[int, str] = {}
    count = 0
    for n, text in enumerate(rows):
        count = n + 1
        if n not in indices:
            continue
        if not isinstance(text, str) or not text.strip():
            raise DataError(
                f"is {'missing' if text is None else repr(text)[:40]}; expected the "
                "persona's description",
                source=path,
                record=f"row {n}",
                field=PERSONA_FIELD,
            )
        out[n] = text
    beyond = sorted(i for i in indices if i >= count)
    if beyond:
        raise DataError(
            f"has {count} rows; persona_index {beyond[0]} of the scores is beyond them "
            f"({len(beyond)} such); expected the whole train split of Tianyi-Lab/Personas",
            source=path,
        )
    return out
