"""Titles found only where they are written as titles (`TitleMatcher.find_written`),
against labelled sentences over the built-in catalog's titles and a few more
(tests/support/title_corpus.py describes the corpora and the catalog).

`titles.jsonl` is the corpus the rules were written against (every sentence right but the
few it marks `open`, misread and left so, with the reason);
`titles_heldback.jsonl` was written after them and the rules were not changed for it
afterwards: its figure is printed, and a floor it meets is required. A held-back set
that falls short is folded into `titles.jsonl` once the rules are fixed for it, and a
fresh one written. The blind corpora (over their writers' own 18 films) are measured
the same way: `titles_blind_tuned.jsonl` (three writers), since used to fix rules, and
`titles_blind_heldback.jsonl` (a fourth), measured before any rule was fixed against it
(71 of 100 read rightly by the matcher before possessives, quotes, an article put last
and years were read; 79 before the rules of tests/catalog/test_title_language.py; 83 now).
"""

from __future__ import annotations

import pytest
from support.title_corpus import blind_items, corpus_items, load, measure

from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.title_evidence import starts_sentence

CORPUS, HELDBACK = "titles.jsonl", "titles_heldback.jsonl"
#: The least share of held-back sentences read rightly (see the module docstring).
HELDBACK_FLOOR = 0.92  # measured: 80 of 85 (94.1%)
#: The same for the blind corpora: (file, floor), measured 262 of 290 and 83 of 100.
BLIND_FLOORS = [("titles_blind_tuned.jsonl", 0.9), ("titles_blind_heldback.jsonl", 0.82)]


@pytest.fixture(scope="module")
def matcher() -> TitleMatcher:
    return TitleMatcher(corpus_items())


@pytest.mark.parametrize("name", [CORPUS, HELDBACK])
def test_every_title_a_corpus_expects_is_in_the_catalog(matcher, name):
    rows = load(name)
    expected = {t for r in rows for t in r["titles"]}
    titles = {m.title for t in expected for m in matcher.find(f'"{t}"')}
    assert expected <= titles


def test_titles_are_found_only_where_written_as_titles(matcher):
    rows = load(CORPUS)
    result = measure(matcher, rows)
    print("\n" + result.line(CORPUS))
    assert len(rows) >= 300
    # every sentence right but the ones the corpus marks open (misread, and left so)
    assert result.wrong_texts == [r["text"] for r in rows if "open" in r], result.wrong


def test_the_held_back_sentences_are_read_as_well_as_measured(matcher):
    rows = load(HELDBACK)
    result = measure(matcher, rows)
    print("\n" + result.line(HELDBACK) + "".join(f"\n  {w}" for w in result.wrong))
    assert len(rows) >= 80
    assert result.right / result.total >= HELDBACK_FLOOR


@pytest.mark.parametrize(("name", "floor"), BLIND_FLOORS)
def test_the_blind_corpora_are_read_as_well_as_measured(name, floor):
    rows = load(name)
    result = measure(TitleMatcher(blind_items()), rows)
    print("\n" + result.line(name) + "".join(f"\n  {w}" for w in result.wrong))
    assert len(rows) >= 100
    assert result.right / result.total >= floor


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
