"""Quotation marks and emphasis around a title: a mark, or quoted speech
(catalog/title_quotes.py)."""

from __future__ import annotations

import pytest

from taurec.catalog.title_quotes import Marks, marks


def _marks(text: str, words: str, exact: bool = True) -> Marks:
    start = text.index(words)
    return marks(text, start, start + len(words), exact)


@pytest.mark.parametrize(
    "text",
    [
        'Try "Up" tonight.',
        "Try “Up” tonight.",
        "Try 'Up' tonight.",
        "Try ‘Up’ tonight.",
        "Try *Up* tonight.",
        "Try **Up** tonight.",
        "Try _Up_ tonight.",
        'Try "Up", a Pixar film.',
        'Try "Up!" tonight.',
        "Try *Up*!",
        'Try "Up (2009)" tonight.',
        "Try **Up (2009)** tonight.",
    ],
)
def test_quotes_and_emphasis_mark_a_title_with_punctuation_inside_or_after(text):
    assert _marks(text, "Up") is Marks.TITLE


def test_a_question_mark_inside_the_quotes_is_part_of_the_title():
    assert _marks('Have you seen "Shall We Dance?" yet?', "Shall We Dance") is Marks.TITLE


def test_no_marks_is_none():
    assert _marks("Try Up tonight.", "Up") is Marks.NONE


def test_apostrophes_are_no_quotes():
    assert _marks("I'd say it's Hamnet's best.", "Hamnet") is Marks.NONE
    assert _marks("I don’t think ‘Toy Story’ works.", "Toy Story") is Marks.TITLE


def test_a_quotation_holding_more_than_the_title_is_speech():
    text = 'Her motto, "never look back, never regret", is the whole film.'
    assert _marks(text, "never look back", exact=False) is Marks.SPEECH
    assert _marks('I loved "Avengers: Infinity War".', "Infinity") is Marks.SPEECH


@pytest.mark.parametrize(
    "text",
    [
        'As she says, "never look back".',
        'He tells her: "never look back".',
        'The tagline is "never look back".',
        '"Never look back," she says.',
    ],
)
def test_a_quotation_a_verb_of_saying_introduces_is_speech(text):
    words = "never look back" if "never" in text else "Never look back"
    assert _marks(text, words, exact=False) is Marks.SPEECH


def test_speech_that_spells_the_title_as_the_catalog_does_names_it():
    assert _marks('As she says, "Never Look Back".', "Never Look Back") is Marks.TITLE


def test_emphasis_around_a_longer_phrase_hides_nothing():
    assert _marks("**I'd start with Hamnet** tonight.", "Hamnet") is Marks.NONE


def test_a_quotation_on_another_line_does_not_enclose():
    assert _marks('"Open\nTry Up tonight"', "Up") is Marks.NONE
