"""A one-word title where a place stands in a plot (catalog/title_places.py)."""

from __future__ import annotations

import pytest

from taurec.catalog.title_places import is_place


def _at(text: str, word: str) -> bool:
    return is_place(text, text.index(word))


@pytest.mark.parametrize(
    "text",
    [
        "After leaving Brackford, she drifts south.",
        "She grew up in Brackford.",
        "A night at Brackford changes everything.",
        "A stranger from Brackford arrives.",
        "He returns to Brackford to bury his father.",
        "They move back to Brackford.",
        "The streets of Brackford are empty.",
        "She visits Brackford every summer.",
        "They flee Brackford at dawn.",
        "In Brackford, nothing happens.",
    ],
)
def test_a_word_after_a_preposition_or_verb_of_place_is_a_place(text):
    assert _at(text, "Brackford")


@pytest.mark.parametrize(
    "text",
    [
        "Have you seen Hamnet?",
        "Something similar to Hamnet?",
        "Jessie Buckley is brilliant in Hamnet.",
        "Her role in Hamnet is her best.",
        "A scene from Hamnet stays with you.",
        "Are you interested in Hamnet?",
        "Take a look at Hamnet.",
        "Fans of Hamnet will like it.",
        "I'd add Hamnet to the list.",
    ],
)
def test_a_word_after_words_of_film_talk_is_no_place(text):
    assert not _at(text, "Hamnet")


def test_punctuation_between_breaks_the_reading():
    assert not _at("They stayed in. Hamnet is next.", "Hamnet")
    assert not _at("Where were they in (Brackford)?", "Brackford")


def test_saying_a_word_is_a_place_makes_it_one():
    from taurec.catalog.title_places import names_place

    assert names_place("Brackford is a quiet town on the coast.", len("Brackford"))
    assert names_place("Ashgrove, a small mining town.", len("Ashgrove"))
    assert not names_place("Brackford is a quiet thriller.", len("Brackford"))


def test_of_after_a_noun_of_place_or_of_its_people_is_a_place():
    assert _at("The mayor of Brackford refuses to talk.", "Brackford")
    assert not _at("The director of Hamnet also wrote it.", "Hamnet")


def test_is_where_says_a_place():
    from taurec.catalog.title_places import names_place

    assert names_place("Ashgrove is where he grew up.", len("Ashgrove"))
