"""The one error type for bad catalog, task and suite data.

Every message names the file, the record (item or task id), the field, and what was
expected, so a person can fix the input without reading our code.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

#: what a damaged or incomplete catalog folder's error ends with
REWRITE_HINT = (
    "expected a complete catalog folder (write it again from its source: "
    "taurec catalog build SOURCE --out FOLDER)"
)


class DataError(ValueError):
    """Input data that cannot be loaded. Raised before anything is half-loaded."""

    def __init__(
        self,
        message: str,
        *,
        source: str | Path | None = None,
        record: str | None = None,
        field: str | None = None,
    ) -> None:
        self.source = str(source) if source is not None else None
        self.record = record
        self.field = field
        self.detail = message
        parts = [
            p for p in (self.source, record and f"{record}", field and f"field '{field}'") if p
        ]
        super().__init__(": ".join([*parts, message]))


def _loc(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def from_validation_error(
    exc: ValidationError, *, source: str | Path | None, record: str | None
) -> DataError:
    """Turn pydantic's error list into one DataError naming the first bad field."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    field = _loc(first["loc"]) or None
    got = first.get("input")
    got_txt = repr(got) if not isinstance(got, dict) else "an object"
    if len(got_txt) > 80:
        got_txt = got_txt[:77] + "..."
    msg = f"expected {first['msg'].removeprefix('Input should be ').removeprefix('Value error, ')}"
    if first["type"] == "missing":
        msg = "is required but missing"
    elif first["type"] == "extra_forbidden":
        msg = "is not a known field"
    elif not isinstance(got, dict):  # a model-level check already says what it got
        msg += f", got {got_txt}"
    if len(errors) > 1:
        msg += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return DataError(msg, source=source, record=record, field=field)
