"""Rules of written English the title matcher reads by (catalog/title_evidence.py,
title_text.py), each on sentences of its own over the blind corpora's 18 films
(tests/support/title_corpus.py): a year said in more ways than in brackets, shouting,
a text with no capitals, the entries of a list a label opens, and a title-case name that
goes on past a catalog title."""

from __future__ import annotations

import pytest
from support.title_corpus import blind_items

from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.title_text import year_after

MATCHER = TitleMatcher(blind_items())


def _named(text: str) -> list[tuple[str, ...]]:
    return [m.item_ids for m in MATCHER.find_written(text)]


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Shall We Dance? (the 1937 one) is lovely.", [("b_dance37",)]),
        ("I mean Shall We Dance? from 1996.", [("b_dance96",)]),
        ("Shall We Dance?, the 1996 version, is gentle.", [("b_dance96",)]),
        ("Shall We Dance? (released in 1996) is gentle.", [("b_dance96",)]),
        ("Shall We Dance? ('37) has Gershwin songs.", [("b_dance37",)]),
        ("Have you seen the '96 Shall We Dance?", [("b_dance96",)]),
        ("Shall We Dance? is a charming pick.", [("b_dance37", "b_dance96")]),
    ],
)
def test_a_year_said_with_a_title_picks_its_item(text, items):
    assert _named(text) == items


def test_a_two_digit_year_reads_the_same_in_any_year():
    assert year_after("X ('29)", 1) == (2029, 7)
    assert year_after("X ('30)", 1) == (1930, 7)


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("PLEASE JUST CHEER ME UP", []),
        ("I WANT SOMETHING TO WATCH WITH HER", []),
        ("NORMAL OR MERCY?", [("b_normal",), ("b_mercy",)]),
        ("WATCH UP (2009) TONIGHT", [("b_up",)]),
        ("Tonight, watch Up.", [("b_up",)]),
    ],
)
def test_shouting_says_nothing_of_a_pronoun_or_particle_title(text, items):
    assert _named(text) == items


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("mercy is a tense thriller", [("b_mercy",)]),
        ("saltwater kings is a heist movie, trust me", [("b_kings",)]),
        ("have mercy on me, i need sleep", []),
        ("normal is what they want", []),
        ("we rewatched paper lanterns yesterday", [("b_lanterns",)]),
        ("i watched her walk away", []),
        ("I watched never look back", []),
    ],
)
def test_a_text_without_capitals_needs_other_evidence(text, items):
    assert _named(text) == items


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Recommended: Normal, Mercy and David.", [("b_normal",), ("b_mercy",), ("b_david",)]),
        ("My picks: Up, Her, David", [("b_up",), ("b_her",), ("b_david",)]),
        ("Pick from the films Up, Her or David.", [("b_up",), ("b_her",), ("b_david",)]),
        ("I watched the film Up and David loved it.", [("b_up",)]),
        ("Recommended: Up. David says hi.", [("b_up",)]),
    ],
)
def test_each_entry_of_a_list_a_label_opens_is_a_title(text, items):
    assert _named(text) == items


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Have you seen Up in the Air?", []),
        ("Is Night Train to Lisbon any good?", []),
        ("They watched Never Look Back in Brackford.", [("b_look",)]),
        ("Save Harbor Lights in December for the holidays.", [("b_harbor",)]),
        ("Watch Her in French with subtitles.", [("b_her",)]),
        ("Try Mercy on the Lumen app.", [("b_mercy",)]),
        ("You could stream Her on Netflix.", [("b_her",)]),
    ],
)
def test_a_title_case_name_that_goes_on_past_a_title_is_another_name(text, items):
    assert _named(text) == items
