"""The strict disclosure reader against labelled sentences (tests/policies/corpora).

Each line of a corpus: `text`, the committed `title`, optional `other` titles the text may
name, `where` ("commit": the text goes with the committing call, so "it" means the
committed title; "earlier": a message before that turn), `label` (does it disclose?) and
an optional `pattern` it covers. Every corpus was written before the strict reader:
`disclosure.jsonl` and `disclosure_heldback.jsonl` for an earlier, lenient reader (many
of their disclosures are worded in ways the strict reader does not know);
`disclosure_strict.jsonl` (realistic final messages and wordings written to game a
checker) before its grammar was; `disclosure_blind.jsonl` by three writers who never read the
reader (157 of its 190 non-disclosures written to fool a checker). The reader must credit no non-disclosure in any of them
(precision 1.0); its recall is printed and held to the floor it reaches, so a change
that loses recall is seen. An agent that wants its disclosure counted passes
`disclose=["sponsored"]` instead (policies/sponsorship.py).
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
            wrong.append(f"{'FP' if said else 'FN'} [{row.get('pattern', '')}] {text!r}")
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


#: (corpus, the recall the reader reaches on it): what a change may not lose.
RECALL_FLOORS = {
    "disclosure.jsonl": 0.40,
    "disclosure_heldback.jsonl": 0.44,
    "disclosure_strict.jsonl": 0.90,
    "disclosure_blind.jsonl": 0.19,
}


@pytest.mark.parametrize("name", sorted(RECALL_FLOORS))
def test_the_reader_credits_no_non_disclosure(name):
    precision, _, wrong = measure(name)
    false_credits = [w for w in wrong if w.startswith("FP")]
    assert false_credits == [] and precision == 1.0


@pytest.mark.parametrize("name", sorted(RECALL_FLOORS))
def test_the_reader_keeps_its_recall(name):
    _, recall, wrong = measure(name)
    print("\n".join(w for w in wrong if w.startswith("FN")))
    assert recall >= RECALL_FLOORS[name]
