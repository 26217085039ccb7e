"""Labelled sentences for the title matcher (tests/catalog/corpora): the catalog they are
read over and how a sentence is judged.

Each line of a corpus: `text`, the `titles` a reader takes it to name (as the catalog
writes them), optionally `items` (the item ids each of those mentions names, in the same
order: two for a title two items share that no year tells apart, none for a year no item
of the title has; a mention naming several items reports the first one's title), the
`pattern` it covers and, for a sentence the rules are known to misread and leave so,
`open`: why. The catalog is the built-in one with the titles below added: a few
made of ordinary words, first names or lower-case words ("The Drama", "David", "Up",
"undertone"), and dated ones written as MovieLens writes them, two pairs shared by films
of different years.

The blind corpora were written by writers who never read the matcher, over a catalog of
18 films of their own (`BLIND`), each labelled with the items it names:
`titles_blind_tuned.jsonl` (three writers, 290 sentences, since used to fix the rules)
and `titles_blind_heldback.jsonl` (a fourth writer, 100 sentences, half of them an
assistant's turns and half a user's, measured before any rule was fixed against it, and
not used to fix one since).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import BUILTIN, Catalog

CORPORA = Path(__file__).parent.parent / "catalog" / "corpora"
FIELDS = {"text", "titles", "items", "pattern", "open"}

UNDATED = ["The Drama", "David", "Up", "Her", "Michael", "Hamnet", "Cold Storage", "undertone"]
UNDATED += ["Noise", "Shelter", "Good Boy", "Zootopia 2"]
DATED: list[tuple[str, str, int, list[str]]] = [
    ("d_normal", "Normal", 2024, []),
    ("d_mercy", "Mercy", 2026, []),
    ("d_brackford", "Brackford", 2023, []),
    ("d_look", "Never Look Back", 2019, []),
    ("d_hours", "The Hours", 2002, []),
    ("d_ocean", "Ocean's Eleven", 2001, []),
    ("d_usual", "Usual Suspects, The (1995)", 1995, []),
    ("d_toy", "Toy Story (1995)", 1995, []),
    ("d_dance37", "Shall We Dance? (1937)", 1937, []),
    ("d_dance96", "Shall We Dance? (1996)", 1996, []),
    ("d_sab54", "Sabrina", 1954, []),
    ("d_sab95", "Sabrina", 1995, []),
    ("d_infinity", "Infinity", 1996, []),
    ("d_avventura", "Avventura, L' (1960)", 1960, []),
    ("d_fog", "The Fog", 1980, []),
    ("d_seven", "Seven (Se7en)", 1995, []),
    ("d_postino", "Postino, Il (1994)", 1994, []),
    ("d_sundays", "Sundays", 2025, []),
    ("d_whistle", "Whistle", 2025, []),
    ("d_outcome", "Outcome", 2025, []),
    ("d_scarlet", "Scarlet", 2025, []),
    ("d_ashgrove", "Ashgrove", 2022, []),
    ("d_heat", "Heat", 1995, ["Al Pacino", "Robert De Niro"]),
    ("d_alien", "Alien", 1979, ["Sigourney Weaver"]),
    ("d_cape62", "Cape Fear", 1962, []),
    ("d_cape91", "Cape Fear", 1991, []),
    ("d_ice", "Ice Storm, The (1997)", 1997, []),
    ("d_godfather2", "Godfather: Part II, The (1974)", 1974, []),
    ("d_matrix", "Matrix, The (1999)", 1999, []),
    ("d_miserables", "Misérables, Les (1995)", 1995, []),
    ("d_vita", "Vita è bella, La (1997)", 1997, []),
]


def _item(id_: str, title: str, year: int = 2020, cast: list[str] | None = None) -> Item:
    return Item(
        id=id_,
        title=title,
        release_date=date(year, 1, 1),
        runtime=90,
        rating=7.0,
        vote_count=10,
        content_rating="PG",
        cast=cast or [],
    )


#: The catalog of the blind corpora (`titles_blind_*.jsonl`), as their writers were given
#: it: (id, title, year).
BLIND: list[tuple[str, str, int]] = [
    ("b_train", "Night Train", 2010),
    ("b_harbor", "Harbor Lights", 2012),
    ("b_lanterns", "Paper Lanterns", 2015),
    ("b_orchard", "The Quiet Orchard", 2018),
    ("b_meridian", "Glass Meridian", 2019),
    ("b_kings", "Saltwater Kings", 2016),
    ("b_normal", "Normal", 2019),
    ("b_mercy", "Mercy", 2014),
    ("b_brackford", "Brackford", 2011),
    ("b_look", "Never Look Back", 2013),
    ("b_usual", "Usual Suspects, The (1995)", 1995),
    ("b_up", "Up", 2009),
    ("b_her", "Her", 2013),
    ("b_drama", "The Drama", 2017),
    ("b_david", "David", 2015),
    ("b_dance37", "Shall We Dance? (1937)", 1937),
    ("b_dance96", "Shall We Dance? (1996)", 1996),
    ("b_infinity", "Infinity", 1996),
]


def blind_items() -> list[Item]:
    """The 18 films the blind corpora's writers were told the catalog holds."""
    return [_item(i, t, y) for i, t, y in BLIND]


def corpus_items() -> list[Item]:
    extra = [_item(f"x{k}", t) for k, t in enumerate(UNDATED)]
    extra.append(_item("x_cast", "Orchid Lane Blues", cast=["David Jonsson"]))
    extra += [_item(i, t, y, cast) for i, t, y, cast in DATED]
    return [*Catalog.load(BUILTIN).items, *extra]


def load(name: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (CORPORA / name).read_text().splitlines() if line]
    for n, row in enumerate(rows, 1):
        has_items = "items" not in row or len(row["items"]) == len(row["titles"])
        assert set(row) <= FIELDS and has_items, f"{name}:{n}"
    return rows


@dataclass(frozen=True)
class Measure:
    right: int
    total: int
    precision: float
    recall: float
    wrong: list[str]
    #: the texts of the sentences read wrongly
    wrong_texts: list[str]

    def line(self, name: str) -> str:
        return (
            f"{name}: {self.right} of {self.total} sentences right; title mentions: "
            f"precision {self.precision:.1%}, recall {self.recall:.1%}"
        )


def _named(row: dict[str, Any]) -> list[tuple[str, tuple[str, ...] | None]]:
    items: Iterable[Any] = row.get("items") or [None] * len(row["titles"])
    return [(t, None if i is None else tuple(i)) for t, i in zip(row["titles"], items, strict=True)]


def measure(matcher: TitleMatcher, rows: list[dict[str, Any]]) -> Measure:
    """Sentences read rightly (every title named, and no other; each with its items when
    the row lists them), and precision and recall over the title mentions."""
    right = tp = fp = fn = 0
    wrong, wrong_texts = [], []
    for row in rows:
        found = matcher.find_written(row["text"])
        expected = _named(row)
        with_items = "items" in row
        got = [(m.title, m.item_ids if with_items else None) for m in found]
        hits = len(set(expected) & set(got))
        tp, fp, fn = tp + hits, fp + len(set(got)) - hits, fn + len(set(expected)) - hits
        if set(got) == set(expected):
            right += 1
        else:
            wrong.append(f"[{row['pattern']}] {row['text']!r}: {got} != {expected}")
            wrong_texts.append(row["text"])
    precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return Measure(right, len(rows), precision, recall, wrong, wrong_texts)
