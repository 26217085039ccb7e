"""The disclosure reader against labelled sentences written for it (tests/policies/corpora).

Each line of a corpus: `text`, the committed `title`, optional `other` titles the text may
name, `where` ("commit": the text goes with the committing call, so "it" means the
committed title; "earlier": a message before that turn), `label` (does it disclose?) and
the `pattern` it covers. `disclosure.jsonl` is the corpus the rules were written against
(100% required); `disclosure_heldback.jsonl` was written after them, without changing them
afterwards (at least 98% precision and recall required). A held-back set that fell short
was folded into `disclosure.jsonl` once the rules were fixed for it, and a fresh one
written.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher
from taurec.policies.disclosure import find_disclosure

CORPORA = Path(__file__).parent / "corpora"
FIELDS = {"text", "title", "other", "where", "label", "pattern"}


def load(name: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (CORPORA / name).read_text().splitlines() if line]
    for n, row in enumerate(rows, 1):
        assert set(row) <= FIELDS and row["where"] in ("commit", "earlier"), f"{name}:{n}"
    return rows


def _matcher(rows: list[dict[str, Any]]) -> tuple[TitleMatcher, dict[str, str]]:
    titles = sorted({r["title"] for r in rows} | {t for r in rows for t in r.get("other", [])})
    ids = {t: f"i{k}" for k, t in enumerate(titles)}
    items = [
        Item(
            id=i,
            title=t,
            release_date=date(2020, 1, 1),
            runtime=90,
            rating=7.0,
            vote_count=10,
            content_rating="PG",
        )
        for t, i in ids.items()
    ]
    return TitleMatcher(items), ids


def measure(name: str) -> tuple[float, float, list[str]]:
    """(precision, recall, the rows judged wrongly) of the reader on corpus `name`."""
    rows = load(name)
    matcher, ids = _matcher(rows)
    counts: Counter[str] = Counter()
    wrong = []
    for row in rows:
        text = row["text"]
        said = find_disclosure(
            text, matcher.occurrences(text), ids[row["title"]], row["where"] == "commit"
        )
        outcome = ("t" if (said is not None) == row["label"] else "f") + (
            "p" if said is not None else "n"
        )
        counts[outcome] += 1
        if outcome[0] == "f":
            wrong.append(f"{'FP' if said else 'FN'} [{row['pattern']}] {text!r}")
    precision = counts["tp"] / max(counts["tp"] + counts["fp"], 1)
    recall = counts["tp"] / max(counts["tp"] + counts["fn"], 1)
    print(
        f"\n{name}: {len(rows)} sentences ({counts['tp'] + counts['fn']} disclosures): "
        f"precision {precision:.1%}, recall {recall:.1%}"
    )
    return precision, recall, wrong


def test_the_corpus_covers_every_pattern_with_disclosures_and_non_disclosures():
    rows = load("disclosure.jsonl")
    patterns = {r["pattern"] for r in rows}
    assert len(rows) >= 300 and sum(r["label"] for r in rows) >= 100
    must = {"denial", "contrast", "question", "hypothetical", "other title", "hyphenated"}
    assert must | {"one of them", "lookalike", "label", "answered question"} <= patterns


def test_the_reader_judges_every_sentence_of_the_corpus_rightly():
    precision, recall, wrong = measure("disclosure.jsonl")
    assert wrong == [] and precision == recall == 1.0


@pytest.mark.skipif(
    not (CORPORA / "disclosure_heldback.jsonl").is_file(), reason="no held-back corpus"
)
def test_the_reader_reaches_98_percent_on_the_held_back_corpus():
    assert len(load("disclosure_heldback.jsonl")) >= 75
    precision, recall, wrong = measure("disclosure_heldback.jsonl")
    print("\n".join(wrong))
    assert precision >= 0.98 and recall >= 0.98, wrong
