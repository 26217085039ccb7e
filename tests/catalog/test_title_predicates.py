"""What the text goes on to say of a word: only what one says of a film?
(catalog/title_predicates.py)."""

from __future__ import annotations

import re

import pytest

from taurec.catalog.title_predicates import says_film


def _after(text: str) -> bool:
    """What follows the sentence's first word says it is a film."""
    first = re.match(r"[^\W_]+", text)
    assert first is not None
    return says_film(text, first.end())


@pytest.mark.parametrize(
    "text",
    [
        "Normal is a slow-burn drama.",
        "Normal is one of the best films of the year.",
        "Normal was an easy pick for me.",
        "Normal's a great watch.",
        "Normal is a must-watch.",
        "Normal, a quiet drama, is lovely.",
        "Mercy — an action thriller.",
        "Mercy is on Netflix.",
        "Mercy is streaming on Hulu.",
        "Mercy is rated R.",
        "Mercy stars Chris Pratt.",
        "Mercy follows a detective.",
        "Mercy runs 95 minutes.",
        "Mercy came out in 2026.",
        "Mercy was directed by Timur Bekmambetov.",
        "Mercy is set in Los Angeles.",
        "MERCY IS A TENSE THRILLER.",
    ],
)
def test_film_talk_after_a_word_says_it_is_a_film(text):
    assert _after(text)


@pytest.mark.parametrize(
    "text",
    [
        "Noise is everywhere.",
        "Noise is a problem in cities.",
        "Mercy is a virtue.",
        "Shelter is what they all need.",
        "Noise follows you everywhere.",
        "Her performance is wonderful.",
        "Normal is the new normal.",
        "Mercy stars in nothing.",
    ],
)
def test_other_talk_says_nothing_of_a_film(text):
    assert not _after(text)


def test_a_possessive_and_a_part_of_a_film_or_having_one_is_film_talk():
    assert _after("Heat's runtime is long.") and _after("Alien’s production design holds up.")
    assert _after("Shelter has a great twist.") and _after("Up has a heartbreaking opening.")
    assert not _after("Noise has a way of creeping in.") and not _after("Noise's effect is clear.")


def test_a_names_possessive_and_feels_like_lead_a_noun_phrase():
    assert _after("Her is Spike Jonze's most tender film.")
    assert _after("Mercy feels like a Black Mirror episode.")
    assert not _after("Mercy feels like a warm blanket.")
