"""The saved title index of a catalog folder: titles and people, found without reading items.

Finding titles in free text (`TitleMatcher`) and the simulated user's reading of agent
messages (`taurec.server.recommendation.simulator.nlu`) need every title and person's name in a lookup
table. A JSON catalog builds those tables from its items when they are first needed; a
catalog folder saves them when it is written, under `titles/`, so a million-item folder
starts an episode in seconds without decoding its items:

    manifest.json                 longest title (tokens), name lengths, genre spellings, ...
    exact.keys / exact.titles     normalised titles (tokens joined by U+001F), sorted, with
    exact.rows.npy, .starts.npy   the first spelling of each and the rows holding it
    first_words                   each normalised title's first token, sorted
    fuzzy.keys / fuzzy.titles     the keys fuzzy matching compares (`loose_title_key`), in
    fuzzy.rows.npy, .starts.npy   the order items first name them, with spelling and rows
    names                         people's names of two or more tokens (joined by U+001F)
    people                        every person's name, tokens joined by a space
    variants.keys, .spellings     the other reading forms of titles, sorted, with spelling
    variants.targets.npy, .starts and the exact keys each names (`title_variants`)

(each `X.keys`-like name is a string column: `X.bin` and `X.offsets.npy`, see `strings`).
A folder written before this index existed has no `titles/`; its matchers are built from
its items on first use, as a JSON catalog's are: slower to start, the same answers. A
folder written before the reading forms were saved (index version 1) computes them from
its saved titles on first use, without reading an item.
"""

from __future__ import annotations

import array
import re
from collections.abc import Sequence
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import orjson

from taurec.catalog.errors import REWRITE_HINT, DataError
from taurec.catalog.item import Item
from taurec.catalog.strings import StringColumn, save_strings
from taurec.catalog.title_variants import (
    VARIANT_ARRAYS,
    VARIANT_COLUMNS,
    SavedVariants,
    Variant,
    VariantsBuilder,
    computed_variants,
)
from taurec.catalog.tokens import title_tokens

TITLES_FOLDER = "titles"
#: 2: the reading forms are saved (`variants`); 1: they are computed on first use
TITLE_INDEX_VERSION = 2
#: Joins a title's tokens into one key (no token holds it: tokens are word characters).
SEP = "\x1f"
#: A loose key shorter than this is not matched fuzzily: short titles match too much.
FUZZY_MIN_KEY = 8
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")

Entry = tuple[str, tuple[str, ...]]  # (the title as first spelt, the ids holding it)


class TitleGroup(NamedTuple):
    """The items holding one title: its first spelling, their ids and release years (in
    row order)."""

    title: str
    ids: tuple[str, ...]
    years: tuple[int, ...]


class Reading(NamedTuple):
    """What a key of title tokens names in text: the spelling it reads ("The Usual
    Suspects") and each title it names, in the order of their first items."""

    spelling: str
    groups: tuple[TitleGroup, ...]


def loose_title_key(text: str) -> str:
    """A title's key for fuzzy matching: its tokens joined by spaces, a leading article off."""
    return _ARTICLE.sub("", " ".join(title_tokens(text)))


class _KeyedRows:
    """Collects (key, row, spelling): each key's first spelling and its rows in row order."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}
        self.titles: list[str] = []
        self.row_codes = array.array("q")
        self.rows = array.array("q")

    def add(self, key: str, row: int, title: str) -> None:
        code = self.codes.get(key)
        if code is None:
            code = self.codes[key] = len(self.titles)
            self.titles.append(title)
        self.rows.append(row)
        self.row_codes.append(code)

    def save(self, folder: Path, name: str, *, sort: bool) -> None:
        keys = list(self.codes)
        order = sorted(range(len(keys)), key=keys.__getitem__) if sort else range(len(keys))
        position = np.empty(len(keys), dtype=np.int64)
        position[np.asarray(order, dtype=np.int64)] = np.arange(len(keys))
        codes = position[np.frombuffer(self.row_codes, dtype=np.int64)]
        by_key = np.argsort(codes, kind="stable")  # rows stay ascending within a key
        rows = np.frombuffer(self.rows, dtype=np.int64)[by_key]
        starts = np.searchsorted(codes[by_key], np.arange(len(keys) + 1))
        save_strings(folder, f"{name}.keys", (keys[c] for c in order))
        save_strings(folder, f"{name}.titles", (self.titles[c] for c in order))
        np.save(
            folder / f"{name}.rows.npy", rows.astype(np.int32 if len(rows) < 2**31 else np.int64)
        )
        np.save(folder / f"{name}.starts.npy", starts.astype(np.int64))


class TitledRecord(NamedTuple):
    """What the title index reads of an item (an `Item` has these attributes too)."""

    title: str
    cast: list[str]
    director: str | None
    genres: list[str]

    @classmethod
    def of_line(cls, line: bytes) -> TitledRecord:
        """From an items.jsonl line the folder writer wrote (already validated)."""
        d = orjson.loads(line)
        return cls(d["title"], d["cast"], d["director"], d["genres"])


class TitleIndexBuilder:
    """Builds the title index from items (or TitledRecords) given a chunk at a time, in row
    order."""

    def __init__(self) -> None:
        self.n = 0
        self._exact = _KeyedRows()
        self._fuzzy = _KeyedRows()
        self._tokens: dict[str, tuple[str, ...]] = {}  # people recur: tokenise each once
        self._names: set[str] = set()
        self._people: set[str] = set()
        self._genres: set[str] = set()
        self._max_len = 0
        self._variants = VariantsBuilder(SEP)

    def add(self, items: Sequence[Item | TitledRecord]) -> None:
        exact, fuzzy, tokens_of = self._exact, self._fuzzy, self._tokens
        for row, item in enumerate(items, self.n):
            toks = title_tokens(item.title)
            if toks:
                key = SEP.join(toks)
                exact.add(key, row, item.title)
                self._max_len = max(self._max_len, len(toks))
                self._variants.add(item.title, key)
            loose = _ARTICLE.sub("", " ".join(toks))
            if len(loose) >= FUZZY_MIN_KEY:
                fuzzy.add(loose, row, item.title)
            for person in (*item.cast, item.director or ""):
                if person not in tokens_of:
                    toks = tokens_of[person] = title_tokens(person)
                    if len(toks) > 1:
                        self._names.add(SEP.join(toks))
                    if person:
                        self._people.add(" ".join(toks))
            self._genres.update(item.genres)
        self.n += len(items)

    def save(self, folder: Path) -> None:
        """Write the index to `folder / "titles"`."""
        out = folder / TITLES_FOLDER
        out.mkdir()
        self._exact.save(out, "exact", sort=True)
        self._fuzzy.save(out, "fuzzy", sort=False)
        self._variants.save(out, sorted(self._exact.codes))
        first = {k.split(SEP, 1)[0] for k in (*self._exact.codes, *self._variants.keys())}
        save_strings(out, "first_words", sorted(first))
        save_strings(out, "names", sorted(self._names))
        save_strings(out, "people", sorted(self._people))
        manifest = {
            "version": TITLE_INDEX_VERSION,
            "max_len": self._max_len,
            "name_lens": sorted({k.count(SEP) + 1 for k in self._names}),
            "max_words": max((len(t.split()) for t in self._fuzzy.titles), default=0) + 1,
            "genres": sorted(self._genres),
        }
        (out / "manifest.json").write_bytes(orjson.dumps(manifest))


class _Table:
    """One saved keyed-rows table: key `i`'s spelling and the ids of its rows."""

    def __init__(self, folder: Path, name: str, ids: _RowIds) -> None:
        self.keys = StringColumn(folder, f"{name}.keys")
        self.titles = StringColumn(folder, f"{name}.titles")
        self._rows: npt.NDArray[np.integer] = np.load(folder / f"{name}.rows.npy", mmap_mode="r")
        self._starts: npt.NDArray[np.int64] = np.load(folder / f"{name}.starts.npy", mmap_mode="r")
        self._ids = ids
        n = len(self.keys)
        if (
            len(self.titles) != n
            or self._starts.shape != (n + 1,)
            or self._rows.ndim != 1
            or not np.issubdtype(self._rows.dtype, np.integer)
            or not np.issubdtype(self._starts.dtype, np.integer)
            or (n and int(self._starts[-1]) != len(self._rows))
        ):
            raise ValueError(
                f"the {name} table's keys, titles, rows and starts do not fit together"
            )

    def rows(self, i: int) -> npt.NDArray[np.integer]:
        """The rows holding key `i`, ascending."""
        return self._rows[int(self._starts[i]) : int(self._starts[i + 1])]

    def entry(self, i: int) -> Entry:
        return self.titles[i], self._ids.of(self.rows(i))

    def group(self, i: int) -> TitleGroup:
        rows = self.rows(i)
        return TitleGroup(self.titles[i], self._ids.of(rows), self._ids.years(rows))


class _RowIds:
    """Item ids by row, from the folder's sorted ids and each row's rank among them; and
    each row's release year, from the release-date column."""

    def __init__(self, catalog_folder: Path) -> None:
        self._sorted: npt.NDArray[np.bytes_] = np.load(catalog_folder / "ids.npy", mmap_mode="r")
        columns = catalog_folder / "columns"
        self._rank: npt.NDArray[np.integer] = np.load(columns / "id_rank.npy", mmap_mode="r")
        self._release: npt.NDArray[np.integer] = np.load(columns / "release.npy", mmap_mode="r")

    def of(self, rows: npt.NDArray[np.integer]) -> tuple[str, ...]:
        return tuple(b.decode() for b in self._sorted[self._rank[rows]].tolist())

    def years(self, rows: npt.NDArray[np.integer]) -> tuple[int, ...]:
        return tuple(date.fromordinal(day).year for day in self._release[rows].tolist())


class SavedTitles:
    """A catalog folder's title index, opened memory-mapped (see the module docstring)."""

    def __init__(self, catalog_folder: Path) -> None:
        """DataError naming the folder when any file of the index is damaged."""
        folder = catalog_folder / TITLES_FOLDER
        try:
            manifest: dict[str, Any] = orjson.loads((folder / "manifest.json").read_bytes())
            ids = _RowIds(catalog_folder)
            self.version: int = int(manifest["version"])
            self.max_len: int = int(manifest["max_len"])
            self.name_lens: list[int] = [int(n) for n in manifest["name_lens"]]
            self.max_words: int = int(manifest["max_words"])
            self.genres: list[str] = [str(g) for g in manifest["genres"]]
            self._first_words = frozenset(StringColumn(folder, "first_words").all())
            self._exact = _Table(folder, "exact", ids)
            self._saved_variants = SavedVariants(folder) if self.version >= 2 else None
            self.fuzzy = _Table(folder, "fuzzy", ids)
            self._names = StringColumn(folder, "names")
            self.people = StringColumn(folder, "people")
        except (OSError, ValueError, KeyError, TypeError, AttributeError, UnicodeError) as exc:
            # orjson.JSONDecodeError is a ValueError; numpy's junk-file errors too
            why = f"manifest.json lacks {exc}" if isinstance(exc, KeyError) else str(exc)
            why = why.splitlines()[0] if why else type(exc).__name__
            raise DataError(
                f"its title index ({TITLES_FOLDER}/) is damaged: {why}; {REWRITE_HINT}",
                source=catalog_folder,
            ) from None

    def get(self, tokens: tuple[str, ...]) -> Entry | None:
        """The title with these normalised tokens (its first spelling and ids), or None."""
        at = self._exact.keys.position(SEP.join(tokens))
        return None if at is None else self._exact.entry(at)

    @property
    def first_words(self) -> frozenset[str]:
        """The first token of every title and of every other reading form of one."""
        if self._saved_variants is not None:
            return self._first_words
        return self._first_words | self._computed_variants[1]

    def reading(self, tokens: tuple[str, ...]) -> Reading | None:
        """What these normalised tokens name, as a title or another reading form of one
        (`Reading`), or None."""
        key = SEP.join(tokens)
        at = self._exact.keys.position(key)
        variant = self._variant(key)
        if at is None and variant is None:
            return None
        positions = {at} if at is not None else set()
        if variant is not None:
            positions.update(variant[1])
        exact = self._exact
        ordered = sorted(positions, key=lambda p: int(exact.rows(p)[0]))
        spelling = exact.titles[at] if at is not None else variant[0]  # type: ignore[index]
        return Reading(spelling, tuple(exact.group(p) for p in ordered))

    def _variant(self, key: str) -> Variant | None:
        if self._saved_variants is not None:
            return self._saved_variants.get(key)
        return self._computed_variants[0].get(key)

    @cached_property
    def _computed_variants(self) -> tuple[dict[str, Variant], frozenset[str]]:
        """For an index saved without its reading forms (version 1): the table and its
        keys' first tokens, computed from the saved titles."""
        exact = self._exact
        table = computed_variants(exact.titles.all(), lambda p: int(exact.rows(p)[0]), SEP)
        return table, frozenset(k.split(SEP, 1)[0] for k in table)

    def is_name(self, tokens: tuple[str, ...]) -> bool:
        """Whether a person in the catalog has this (two or more token) name."""
        return SEP.join(tokens) in self._names

    @cached_property
    def fuzzy_keys(self) -> list[str]:
        """Every loose key, in the order fuzzy matching compares them (read on first use)."""
        return self.fuzzy.keys.all()


def title_files(version: int = TITLE_INDEX_VERSION) -> list[str]:
    """Every file of a saved title index of `version`, relative to the catalog folder."""
    columns = ["exact.keys", "exact.titles", "first_words", "fuzzy.keys", "fuzzy.titles"]
    columns += ["names", "people"]
    names = ["manifest.json", "exact.rows.npy", "exact.starts.npy"]
    names += ["fuzzy.rows.npy", "fuzzy.starts.npy"]
    if version >= 2:
        columns += VARIANT_COLUMNS
        names += VARIANT_ARRAYS
    names += [f"{c}.{part}" for c in columns for part in ("bin", "offsets.npy")]
    return [f"{TITLES_FOLDER}/{name}" for name in names]


def title_index_version(catalog_folder: Path) -> int:
    """The version the folder's title index was saved as (the current one when its
    manifest cannot say: opening the index then reports the damage)."""
    try:
        doc = orjson.loads((catalog_folder / TITLES_FOLDER / "manifest.json").read_bytes())
        return int(doc["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return TITLE_INDEX_VERSION


def missing_title_files(catalog_folder: Path) -> list[str]:
    """The files of the folder's title index that are not there (none when it has no index
    at all: a folder written before the index existed)."""
    if not (catalog_folder / TITLES_FOLDER).is_dir():
        return []
    files = title_files(title_index_version(catalog_folder))
    return [name for name in files if not (catalog_folder / name).is_file()]


def open_saved_titles(catalog_folder: Path) -> SavedTitles | None:
    """The folder's title index, or None when it was written without one (DataError when
    it is incomplete)."""
    if not (catalog_folder / TITLES_FOLDER).is_dir():
        return None
    missing = missing_title_files(catalog_folder)
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise DataError(
            f"is missing {', '.join(missing[:3])}{more}; {REWRITE_HINT}", source=catalog_folder
        )
    return SavedTitles(catalog_folder)
