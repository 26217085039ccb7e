"""Import the catalog of the τ-Rec public release (CC BY 4.0) into our item schema.

The release's `catalog.json` is a bare list of TMDB-derived movies in almost our schema:
it lacks `original_language` and `keywords` (they get the Item defaults) and names a few
services we do not know (kept as spelled). Nothing is written to disk: the release is
third-party data and is read in place, never copied into this project.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from taurec.catalog.errors import DataError
from taurec.catalog.io import CatalogMeta, parse_items
from taurec.catalog.item import ITEM_FIELDS, Item
from taurec.catalog.services import known_service

CATALOG_FILE = "catalog.json"
#: Item fields the release does not carry, and the default each gets.
DEFAULTED_FIELDS = {"original_language": "en", "keywords": []}


def find_catalog_file(path: str | Path) -> Path:
    """`path` itself if it is a file, else `catalog.json` in it or in its `data/` folder."""
    path = Path(path)
    if path.is_file():
        return path
    for candidate in (path / CATALOG_FILE, path / "data" / CATALOG_FILE):
        if candidate.is_file():
            return candidate
    raise DataError(
        f"holds no {CATALOG_FILE} (nor data/{CATALOG_FILE}); expected a τ-Rec release folder",
        source=path,
    )


def import_catalog(path: str | Path) -> tuple[CatalogMeta, list[Item], list[str]]:
    """Read the release catalog at `path` (the file or its folder).

    Returns the catalog meta, the items in file order, and warnings about what the import
    had to assume (defaulted fields, items on no service, unknown service names). Raises
    DataError, naming the item and field, when a record cannot be read at all.
    """
    file = find_catalog_file(path)
    try:
        doc = orjson.loads(file.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise DataError(f"is not valid JSON ({exc})", source=file) from None
    records = doc.get("items") if isinstance(doc, dict) else doc
    if not isinstance(records, list):
        raise DataError("expected a JSON list of items", source=file)

    warnings: list[str] = []
    extra: Counter[str] = Counter()
    cleaned: list[Any] = []
    for rec in records:
        if isinstance(rec, dict):
            extra.update(k for k in rec if k not in ITEM_FIELDS)
            rec = {k: v for k, v in rec.items() if k in ITEM_FIELDS}
        cleaned.append(rec)
    items = parse_items(cleaned, source=file)
    if not items:
        raise DataError("holds no items; expected at least one", source=file)
    n = len(items)

    for name, default in DEFAULTED_FIELDS.items():
        missing = sum(1 for r in cleaned if name not in r)
        if missing:
            warnings.append(
                f"{missing} of {n} items have no {name}; defaulted to {default!r}, so constraints "
                f"on {name} cannot tell those items apart"
            )
    for name, count in sorted(extra.items()):
        warnings.append(f"ignored field {name!r} (in {count} items): not part of the item schema")
    no_service = sum(1 for it in items if not it.streaming_services)
    if no_service:
        warnings.append(f"{no_service} of {n} items have no streaming service")
    unknown = Counter(s for it in items for s in it.streaming_services if not known_service(s))
    for name, count in sorted(unknown.items()):
        warnings.append(
            f"unknown service name {name!r} ({count} item{'s' if count > 1 else ''}); "
            "kept as spelled"
        )

    root = file.parent.parent if file.parent.name == "data" else file.parent
    meta = CatalogMeta(
        name=root.name or "tau-rec",
        source="tau-rec",
        description=f"τ-Rec public release catalog (CC BY 4.0), read from {file}",
    )
    return meta, items, warnings
