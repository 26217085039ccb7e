"""The `amazon:` interaction source string: two files, then options after semicolons.

    amazon:REVIEWS,META
    amazon:REVIEWS,META;window=agenticrec;category=CDs & Vinyl
    amazon:REVIEWS,META;since=2022-10-01;until=2023-10-01;min_user=2

REVIEWS and META are `.jsonl` or `.jsonl.gz` paths (REVIEWS may also be a rating_only
benchmark `.csv[.gz]`). Options are separated by `;` (not
`,`, which Amazon's category names contain: "Arts, Crafts & Sewing"):

- `since=DATE`, `until=DATE`: ISO dates or date-times, UTC when no offset is given;
  `since` is inclusive, `until` exclusive;
- `window=agenticrec`: AgenticRec's "October 2022 - October 2023", taken as
  since=2022-10-01;until=2023-10-01 (Amazon Reviews 2023 ends in September 2023);
- `category=NAME` (repeatable): keep items with NAME in their category path or as their
  main_category, case ignored;
- `min_user=N`: drop users with fewer than N records (after the other filters);
- `kcore=N`: drop users and items with fewer than N records, repeatedly.

A path holding a comma still works when only one split of the two paths names two
existing files. Every bad option is a one-line DataError naming what was expected.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from taurec.catalog.amazon import AmazonFilter, read_amazon
from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions

#: named windows: (since, until) as ISO dates
WINDOWS = {"agenticrec": ("2022-10-01", "2023-10-01")}
KEYS = ("since", "until", "window", "category", "min_user", "kcore")
OPTIONS = (
    "since=YYYY-MM-DD, until=YYYY-MM-DD, window=agenticrec, category=NAME, min_user=N, kcore=N"
)
SYNTAX = "amazon:REVIEWS,META[;since=DATE][;until=DATE][;window=agenticrec][;category=NAME]..."


def _seconds(value: str, key: str, spec: str) -> int:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise DataError(
            f"{key}={value!r} is not a date; expected {key}=YYYY-MM-DD (UTC)", source=spec
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


def _count(value: str, key: str, spec: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise DataError(
            f"{key}={value!r}; expected {key}=N with N a whole number >= 1", source=spec
        )
    return int(value)


def _files(part: str, spec: str) -> tuple[Path, Path]:
    pieces = part.split(",")
    if len(pieces) < 2 or not all(p.strip() for p in (pieces[0], pieces[-1])):
        raise DataError(f"expected two files: {SYNTAX}", source=spec)
    if len(pieces) == 2:
        return Path(pieces[0]), Path(pieces[1])
    splits = [
        (Path(",".join(pieces[:k])), Path(",".join(pieces[k:]))) for k in range(1, len(pieces))
    ]
    found = [s for s in splits if s[0].is_file() and s[1].is_file()]
    if len(found) != 1:
        raise DataError(
            f"cannot tell where the reviews path ends and the metadata path begins "
            f"({len(found)} splits at a comma name two existing files); expected {SYNTAX}",
            source=spec,
        )
    return found[0]


def parse_amazon_source(arg: str, spec: str | None = None) -> tuple[Path, Path, AmazonFilter]:
    """(reviews path, metadata path, filter) of the text after `amazon:`."""
    spec = spec or f"amazon:{arg}"
    files, *options = arg.split(";")
    reviews, meta = _files(files, spec)
    found: dict[str, str] = {}
    categories: list[str] = []
    for option in options:
        key, eq, value = (s.strip() for s in option.partition("="))
        if not option.strip():
            continue
        if not eq or not value or key not in KEYS:
            raise DataError(
                f"bad amazon option {option.strip()!r}; expected {OPTIONS}", source=spec
            )
        if key == "category":
            categories.append(value)
        elif key in found:
            raise DataError(f"{key}= given twice; expected it once", source=spec)
        else:
            found[key] = value
    if "window" in found:
        if found["window"] not in WINDOWS:
            raise DataError(
                f"window={found['window']!r}; expected window={' or '.join(WINDOWS)}", source=spec
            )
        if "since" in found or "until" in found:
            raise DataError("window= and since=/until= both given; expected one", source=spec)
        found["since"], found["until"] = WINDOWS[found["window"]]
    since = _seconds(found["since"], "since", spec) if "since" in found else None
    until = _seconds(found["until"], "until", spec) if "until" in found else None
    if since is not None and until is not None and since >= until:
        raise DataError("since= is not before until=; expected an earlier since", source=spec)
    keep = AmazonFilter(
        since=since,
        until=until,
        categories=tuple(categories),
        min_user=_count(found["min_user"], "min_user", spec) if "min_user" in found else None,
        kcore=_count(found["kcore"], "kcore", spec) if "kcore" in found else None,
    )
    return reviews, meta, keep


def load_amazon_source(arg: str, spec: str | None = None) -> Interactions:
    """The interactions named by the text after `amazon:`."""
    reviews, meta, keep = parse_amazon_source(arg, spec)
    return read_amazon(reviews, meta, keep)
