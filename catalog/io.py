"""Catalog files: read and write, all-or-nothing, with errors that name the bad record.

A catalog file is JSON: {"format_version": 1, "meta": {...}, "items": [...]} or, for
compatibility, a bare list of items. Large catalogs may be JSON Lines (`.jsonl`): one
item per line, with an optional first line {"meta": {...}}.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taurec.catalog.errors import DataError, from_validation_error
from taurec.catalog.item import Item

CATALOG_FORMAT_VERSION = 1


class CatalogMeta(BaseModel):
    """Where a catalog came from: enough to rebuild it or tell two apart."""

    model_config = ConfigDict(extra="allow")

    name: str = "catalog"
    source: str = Field(default="unknown", description="synthetic | tmdb | tau-rec | ...")
    snapshot_date: date | None = None
    seed: int | None = None
    description: str = ""


def _parse_json(raw: bytes, source: Path) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        # orjson reports "line N column M (char K)"; keep its position text.
        raise DataError(f"is not valid JSON ({exc})", source=source) from None


def parse_items(records: Iterable[Any], *, source: str | Path) -> list[Item]:
    """Validate item records; the first problem raises, naming the item and field."""
    return list(iter_parsed_items(records, source=source))


def iter_parsed_items(records: Iterable[Any], *, source: str | Path) -> Iterator[Item]:
    """`parse_items` one item at a time (a problem raises when its record is reached)."""
    seen: dict[str, int] = {}
    for n, rec in enumerate(records):
        label = f"item #{n}"
        if isinstance(rec, dict) and isinstance(rec.get("id"), str):
            label = f"item {rec['id']!r}"
        if not isinstance(rec, dict):
            raise DataError(
                f"expected a JSON object, got {type(rec).__name__}", source=source, record=label
            )
        try:
            item = Item.model_validate(rec)
        except ValidationError as exc:
            raise from_validation_error(exc, source=source, record=label) from None
        if item.id in seen:
            raise DataError(
                f"duplicate id (first seen as item #{seen[item.id]}); expected unique ids",
                source=source,
                record=label,
                field="id",
            )
        seen[item.id] = n
        yield item


def read_catalog_file(path: str | Path) -> tuple[CatalogMeta, list[Item]]:
    """Load a catalog file; raises DataError (nothing is returned half-loaded)."""
    path = Path(path)
    meta, stream = iter_catalog_file(path)
    items = list(stream)
    if not items:
        raise DataError("holds no items; expected at least one", source=path)
    return meta, items


def iter_catalog_file(path: str | Path) -> tuple[CatalogMeta, Iterator[Item]]:
    """A catalog file's meta and its items, validated as they are reached.

    A JSON Lines file is read line by line, so its items need not fit in memory twice; a
    JSON file is parsed whole. A bad record raises DataError when the iteration reaches it.
    """
    path = Path(path)
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed by the JSONL reader, or below
    except FileNotFoundError:
        raise DataError(
            "no such file or folder; expected a catalog JSON or JSONL file, or a "
            ".taurec-catalog folder",
            source=path,
        ) from None
    except IsADirectoryError:
        raise DataError(
            "is a directory without manifest.json; expected a catalog JSON or JSONL file, or "
            "a .taurec-catalog folder written by `taurec catalog generate` or `build`",
            source=path,
        ) from None
    if path.suffix == ".jsonl":
        return _jsonl(path, fh)
    with fh:
        raw = fh.read()
    doc = _parse_json(raw, path)
    del raw
    meta = CatalogMeta()
    if isinstance(doc, list):
        records = doc
    elif isinstance(doc, dict) and isinstance(doc.get("items"), list):
        version = doc.get("format_version", CATALOG_FORMAT_VERSION)
        if version != CATALOG_FORMAT_VERSION:
            raise DataError(
                f"expected format_version {CATALOG_FORMAT_VERSION}, got {version!r}",
                source=path,
                field="format_version",
            )
        meta = _meta(doc.get("meta", {}), path)
        records = doc["items"]
    else:
        raise DataError(
            'expected a list of items or an object {"meta": ..., "items": [...]}', source=path
        )
    return meta, iter_parsed_items(records, source=path)


def _jsonl(path: Path, fh: Any) -> tuple[CatalogMeta, Iterator[Item]]:
    """The meta on a JSONL file's first line (if any) and a reader of the item lines."""
    first = fh.readline()
    meta = CatalogMeta()
    pending: list[Any] = []
    if first.strip():
        rec = _parse_json(first, Path(f"{path}:1"))
        if isinstance(rec, dict) and set(rec) == {"meta"}:
            meta = _meta(rec["meta"], path)
        else:
            pending.append(rec)

    def records() -> Iterator[Any]:
        with fh:
            yield from pending
            for lineno, line in enumerate(fh, 2):
                try:
                    yield orjson.loads(line)
                except orjson.JSONDecodeError:
                    if line.strip():  # blank lines are allowed
                        yield _parse_json(line, Path(f"{path}:{lineno}"))

    return meta, iter_parsed_items(records(), source=path)


def _meta(rec: Any, path: Path) -> CatalogMeta:
    try:
        return CatalogMeta.model_validate(rec)
    except ValidationError as exc:
        raise from_validation_error(exc, source=path, record="meta") from None


def item_record(item: Item) -> dict[str, Any]:
    return item.model_dump(mode="json")


def write_catalog_file(path: str | Path, meta: CatalogMeta, items: Iterable[Item]) -> Path:
    """Write atomically (temp file + rename), so a reader never sees half a catalog."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            if path.suffix == ".jsonl":
                fh.write(orjson.dumps({"meta": meta.model_dump(mode="json")}) + b"\n")
                for item in items:
                    fh.write(orjson.dumps(item_record(item)) + b"\n")
            else:
                doc = {
                    "format_version": CATALOG_FORMAT_VERSION,
                    "meta": meta.model_dump(mode="json"),
                    "items": [item_record(i) for i in items],
                }
                fh.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
        os.chmod(tmp, 0o644)  # mkstemp makes 0600 files; a catalog is ordinary readable data
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
