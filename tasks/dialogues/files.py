"""Reading dialogue files from outside (ReDial, INSPIRED, DialogueKit, annotated JSONL)
so that every way one can be broken is one DataError naming the file and the line, row
or dialogue, never a traceback: bytes that are not UTF-8, JSON nested past what a parser
follows or holding a number of thousands of digits, a TSV field past csv's limit, and a
record of the right keys holding values of the wrong types."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from taurec.catalog.errors import DataError

#: What `json.loads` raises beyond JSONDecodeError on hostile input: ValueError for a
#: number past Python's digit limit, RecursionError for nesting past its stack.
_JSON_ERRORS = (ValueError, RecursionError)
#: What reading a record of the wrong types raises (`.get` on a list, `str` of a huge
#: number, iterating a number, ...).
_SHAPE_ERRORS = (AttributeError, TypeError, ValueError, KeyError, IndexError, RecursionError)


def read_text(path: Path, expected: str) -> str:
    """The file as UTF-8 text; DataError naming the first byte that is not, or why the
    file cannot be read. `expected` names what the file should be."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot be read ({exc.strerror or exc})", source=path) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(_not_utf8(raw, exc, expected), source=path) from None


def _not_utf8(raw: bytes, exc: UnicodeDecodeError, expected: str) -> str:
    line = raw.count(b"\n", 0, exc.start) + 1
    return (
        f"line {line}: byte 0x{raw[exc.start]:02x} is not UTF-8; expected {expected} in UTF-8 "
        "(convert it first, e.g. iconv -f latin1 -t utf-8)"
    )


def json_value(text: str | bytes, where: str | None, source: Path) -> Any:
    """`text` parsed as JSON; DataError naming `where` (a line; None: the whole file) when
    it is not JSON or holds what a parser cannot follow (nesting thousands deep, numbers
    of thousands of digits)."""
    what = f"{where} " if where else ""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        said = f"is not JSON ({exc.msg})" if where else f"is not valid JSON ({exc})"
        raise DataError(what + said, source=source) from None
    except RecursionError:
        raise DataError(
            f"{what}is JSON nested too deeply to read; expected dialogue records", source=source
        ) from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise DataError(f"{what}holds JSON that cannot be read ({exc})", source=source) from None


@contextmanager
def record_shape(where: str, expected: str, source: Path) -> Iterator[None]:
    """Within the block, a record whose values are of the wrong types (the errors reading
    it raises) is one DataError naming `where` and what was `expected`."""
    try:
        yield
    except DataError:
        raise
    except _SHAPE_ERRORS as exc:
        detail = str(exc).split("\n", 1)[0][:120]
        raise DataError(
            f"{where}: {detail or type(exc).__name__}; expected {expected}", source=source
        ) from None


@contextmanager
def tsv_rows(path: Path, expected: str) -> Iterator[csv.DictReader[str]]:
    """The rows of a TSV file (a header line, then one row a line). Reading it inside the
    block, bytes that are not UTF-8 and a field past csv's size limit are DataErrors
    naming the row."""
    text = read_text(path, expected)
    rows = csv.DictReader(text.splitlines(keepends=True), delimiter="\t")
    try:
        yield rows
    except csv.Error as exc:
        raise DataError(
            f"row {rows.line_num}: {exc}; expected {expected} (fields of at most "
            f"{csv.field_size_limit():,} characters)",
            source=path,
        ) from None
