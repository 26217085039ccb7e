"""The free-text recommendation reader against labelled sentences (tests/policies/corpora).

Each line of `free_text.jsonl`: `text` (a message sent before an abstention), the catalog
`title` it names and `label` (does it recommend that title outright?). Its first 60 lines
were written before the reader; the other 558 by five writers who never read it. All were
then used to fix the reader, so they now hold it to what it does: no false alarm, and the
nine recommendations it misses named below. The last 120 were measured before the reader
was fixed against them: 56 of 60 recommendations caught, 1 false alarm in 60 (docs/evaluator.md).
(docs/evaluator.md gives its figures on sentences it was never fixed against.)
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher
from taurec.policies.free_text import recommended_title

CORPUS = Path(__file__).parent / "corpora" / "free_text.jsonl"


def _rows() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line]


#: The recommendations the reader misses: "closest" reads as a near miss; a heading or a
#: table cell and what is said of it two lines below; a question mark that opens a pick;
#: a choice in words it does not know ("let this be the evening you watch X", "you'll want
#: X", "take X tonight", "check into X"); a condition on what the user wants before it.
KNOWN_MISSES = {
    "the closest fit and my genuine pick is Copper Tide",
    "### Tonight's selection",
    "| Winner | **Harbor Lights** |",
    "ok so Glass Meridian?? yes.",
    "Let this be the evening you watch Seven Rivers",
    "If you want something gripping with a bit of salt spray in it, go with Copper Tide.",
    "You'll want Paper Lanterns for this.",
    "Take Lantern Road tonight;",
    "Check into Blue Hour Motel tonight.",
}


def test_the_corpus_holds_recommendations_and_mentions_alike():
    rows = _rows()
    recommending = sum(r["label"] for r in rows)
    assert len(rows) >= 618 and recommending >= 300 and len(rows) - recommending >= 300


def test_the_reader_judges_every_sentence_of_the_corpus_rightly():
    rows = _rows()
    titles = sorted({r["title"] for r in rows})
    matcher = TitleMatcher(
        Item(
            id=f"i{k}",
            title=t,
            release_date=date(2020, 1, 1),
            runtime=90,
            rating=7.0,
            vote_count=10,
            content_rating="PG",
        )
        for k, t in enumerate(titles)
    )
    wrong = []
    for row in rows:
        found = recommended_title(row["text"], matcher.occurrences(row["text"]))
        judged_wrong = (found is not None and found[0] == row["title"]) != row["label"]
        if judged_wrong and not any(known in row["text"] for known in KNOWN_MISSES):
            wrong.append(f"{'FN' if row['label'] else 'FP'} {row['text']!r}")
    assert wrong == []
