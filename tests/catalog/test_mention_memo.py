"""A TitleMatcher finds a text's occurrences once and remembers them, a bounded number of
texts at a time: the answers are a fresh matcher's."""

from __future__ import annotations

from taurec.catalog import mentions
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import Catalog

TEXTS = [
    "I recommend The Skyward Requiem. Enjoy!",
    "Have you seen Rambunctious Roller Rink? It is lovely.",
    "nothing with a title here",
    "The Skyward Requiem and Hollinhaven: The Last Rite are both on tonight.",
]


def _fresh(text: str, written: bool) -> list[mentions.Mention]:
    return TitleMatcher(Catalog.load("builtin").items).occurrences(text, written=written)


def test_a_text_asked_again_gets_the_same_answer_as_a_fresh_matcher():
    assert any(_fresh(text, True) for text in TEXTS)  # some text names a title
    matcher = TitleMatcher(Catalog.load("builtin").items)
    for _ in range(2):
        for text in TEXTS:
            for written in (True, False):
                assert matcher.occurrences(text, written=written) == _fresh(text, written)


def test_the_remembered_texts_are_bounded(monkeypatch):
    monkeypatch.setattr(mentions, "SEEN_MOST", 3)
    matcher = TitleMatcher(Catalog.load("builtin").items)
    for n in range(10):
        matcher.occurrences(f"text {n} about The Skyward Requiem")
        assert len(matcher._seen) <= 3
    assert matcher.occurrences("text 0 about The Skyward Requiem") == _fresh(
        "text 0 about The Skyward Requiem", True
    )
