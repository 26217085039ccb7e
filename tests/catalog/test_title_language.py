"""Rules of written English the title matcher reads by (catalog/title_evidence.py,
title_text.py), each on sentences of its own over the blind corpora's 18 films
(tests/support/title_corpus.py): a year said in more ways than in brackets, shouting,
a text with no capitals, the entries of a list a label opens, and a title followed by
"to", "at" or "in" and a name."""

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
        ("I just watched paper lanterns, loved it", [("b_lanterns",)]),
        ("Later I watched never look back, as Sam did.", []),
        ("i watched normal people last night, so good", []),
        ("have you seen infinity war?", []),
        ("we saw mercy in her eyes when she forgave him", []),
        ("i watched her walk away", []),
    ],
)
def test_a_text_without_capitals_needs_other_evidence(text, items):
    assert _named(text) == items


def test_a_title_in_lower_case_is_not_heard_by_the_lenient_reader():
    assert MATCHER.find("i need something to cheer me up") == []
    assert [m.item_ids for m in MATCHER.find_written("mercy is a tense thriller")] == [("b_mercy",)]
    assert MATCHER.find("mercy is a tense thriller") == []


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Recommended: Normal, Mercy and David.", [("b_normal",), ("b_mercy",), ("b_david",)]),
        ("My picks: Up, Her, Normal", [("b_up",), ("b_her",), ("b_normal",)]),
        ("Try the film Up, David.", [("b_up",)]),
        ("My pick: Mercy; David, you'll love it.", [("b_mercy",)]),
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
        ("Send Saltwater Kings to Sam.", [("b_kings",)]),
        ("We watched Glass Meridian at the Odeon last night.", [("b_meridian",)]),
        ("They watched Never Look Back in Brackford.", [("b_look",)]),
        ("Watch Her in French with subtitles.", [("b_her",)]),
    ],
)
def test_a_title_followed_by_a_name_after_to_at_or_in_is_still_the_title(text, items):
    # "Night Train to Lisbon" and "Up in the Air" are read as "Night Train" and "Up":
    # nothing in the words tells them from "Harbor Lights to Sam" or "Mercy in the Alps"
    assert _named(text) == items
