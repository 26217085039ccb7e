"""Titles found only where they are written as titles (`TitleMatcher.find_written`),
against labelled sentences over the built-in catalog's titles (tests/catalog/corpora).

Each line of `titles.jsonl`: `text`, the `titles` a reader takes it to name, and the
`pattern` it covers. A few titles made of ordinary words, first names or lower-case
words ("The Drama", "David", "Up", "undertone") join the built-in catalog for it.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import BUILTIN, Catalog
from taurec.catalog.title_evidence import starts_sentence

CORPUS = Path(__file__).parent / "corpora" / "titles.jsonl"
EXTRA = ["The Drama", "David", "Up", "Her", "Michael", "Hamnet", "Cold Storage", "undertone"]
EXTRA += ["Noise", "Shelter", "Good Boy", "Zootopia 2"]


def _item(id_: str, title: str, cast: list[str] | None = None) -> Item:
    return Item(
        id=id_,
        title=title,
        release_date=date(2020, 1, 1),
        runtime=90,
        rating=7.0,
        vote_count=10,
        content_rating="PG",
        cast=cast or [],
    )


@pytest.fixture(scope="module")
def matcher() -> TitleMatcher:
    extra = [_item(f"x{k}", t) for k, t in enumerate(EXTRA)]
    extra.append(_item("x_cast", "Orchid Lane Blues", cast=["David Jonsson"]))
    return TitleMatcher([*Catalog.load(BUILTIN).items, *extra])


def test_every_title_the_corpus_expects_is_in_the_catalog(matcher):
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    titles = {m.title for r in rows for t in r["titles"] for m in matcher.find(f'"{t}"')}
    assert {t for r in rows for t in r["titles"]} <= titles
    assert len(rows) >= 150


def test_titles_are_found_only_where_written_as_titles(matcher):
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    tp = fp = fn = 0
    wrong = []
    for row in rows:
        found = [m.title for m in matcher.find_written(row["text"])]
        expected = set(row["titles"])
        tp += len(expected & set(found))
        fp += len(set(found) - expected)
        fn += len(expected - set(found))
        if set(found) != expected:
            wrong.append(f"[{row['pattern']}] {row['text']!r}: {found} != {sorted(expected)}")
    precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    print(
        f"\n{CORPUS.name}: {len(rows)} sentences, {tp + fn} title mentions: "
        f"precision {precision:.1%}, recall {recall:.1%}"
    )
    assert wrong == [] and precision == recall == 1.0


def test_the_lenient_find_still_reads_ordinary_words_as_titles(matcher):
    # the simulated user keeps the lenient reading: it hears a title a listener would
    assert [m.title for m in matcher.find("the long garden")] == ["The Long Garden"]
    assert matcher.find_written("the long garden") == []


@pytest.mark.parametrize(
    ("text", "at", "starts"),
    [
        ("Up next", 0, True),
        ("Well. Up next", 6, True),
        ("- Up", 2, True),
        ("1. Up", 3, True),
        ("How about Up", 10, False),
        ("So (Up)", 4, False),
    ],
)
def test_a_sentence_starts_after_a_full_stop_a_line_break_or_a_list_mark(text, at, starts):
    assert starts_sentence(text, at) is starts
