"""Task files on disk, whatever format holds them: one JSON file read with its position on
error, the folder tasks sit in, and ids that must differ even ignoring case."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import orjson

from taurec.catalog.errors import DataError

#: the folder of a suite (ours or τ-Rec's release) that holds one JSON file per task
TASKS_DIR: Final = "tasks"


def read_json(path: Path) -> Any:
    """Parse one JSON file, raising DataError with the file and position on bad JSON."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataError("no such file", source=path) from None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise DataError(f"is not valid JSON ({exc})", source=path) from None


def check_unique_ids(tasks: Sequence[Any], *, source: Path | str) -> None:
    """Ids must differ even ignoring case: files 'A.json' and 'a.json' collide on macOS."""
    seen: dict[str, str] = {}
    for t in tasks:
        first = seen.get(t.id.casefold())
        seen[t.id.casefold()] = t.id
        if first is not None:
            same = (
                "the same id" if first == t.id else f"an id that differs only by case ({first!r})"
            )
            raise DataError(
                f"duplicate task id: another task has {same}; expected unique ids",
                source=source,
                record=f"task {t.id!r}",
                field="id",
            )
