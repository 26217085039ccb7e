from datetime import date

from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher


def _item(id_: str, title: str) -> Item:
    return Item(
        id=id_,
        title=title,
        release_date=date(2020, 1, 1),
        runtime=100,
        rating=7.0,
        vote_count=10,
        content_rating="PG",
    )


MATCHER = TitleMatcher(
    [
        _item("a", "The Last Harbor"),
        _item("b", "Last Harbor"),
        _item("c", "Home"),
        _item("d", "Amélie's Garden"),
        _item("e", "Night Train"),
        _item("f", "Night Train"),
    ]
)


def test_finds_a_title_case_and_punctuation_insensitively():
    (m,) = MATCHER.find("have you seen THE LAST HARBOR?")
    assert m.title == "The Last Harbor" and m.item_ids == ("a",)


def test_longest_title_wins_over_a_shorter_title_inside_it():
    assert [m.item_ids for m in MATCHER.find("The Last Harbor is great")] == [("a",)]


def test_one_word_title_needs_the_catalog_capitalisation():
    assert MATCHER.find("a cosy night at home") == []
    assert [m.title for m in MATCHER.find("How about Home?")] == ["Home"]


def test_accents_and_apostrophes_are_ignored():
    assert [m.item_ids for m in MATCHER.find("amelies garden")] == [("d",)]


def test_two_titles_in_one_message_are_both_reported_in_order():
    found = MATCHER.find("Either Night Train or The Last Harbor, your call.")
    assert [m.title for m in found] == ["Night Train", "The Last Harbor"]


def test_a_title_repeated_counts_once_and_duplicate_titles_share_a_mention():
    (m,) = MATCHER.find("Night Train! Yes, Night Train.")
    assert m.item_ids == ("e", "f")


def test_title_split_by_other_words_is_not_a_mention():
    assert MATCHER.find("the last time we were at the harbor") == []
