from datetime import date

import pytest
from support.third_party import TAU_REC

from taurec.catalog.builders.taurec_release import import_catalog
from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher, title_tokens
from taurec.catalog.store import BUILTIN, Catalog


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


# --- people's names are not title mentions ----------------------------------------------


def _people(catalog: Catalog) -> list[str]:
    names = {p for it in catalog.items for p in (*it.cast, it.director or "")}
    return sorted(n for n in names if len(title_tokens(n)) > 1)


def _titles_inside(name: str, matcher: TitleMatcher) -> list[str]:
    """Titles found in a sentence naming `name` that are a proper part of the name."""
    whole = title_tokens(name)
    found = []
    for text in (f"starring {name} again", f"loved {name}'s turn"):
        for m in matcher.find(text):
            toks = title_tokens(m.title)
            inside = any(
                whole[i : i + len(toks)] == toks for i in range(len(whole) - len(toks) + 1)
            )
            if toks != whole and inside:
                found.append(m.title)
    return found


def test_no_title_is_found_inside_a_persons_name_in_the_builtin_catalog():
    catalog = Catalog.load(BUILTIN)
    matcher = TitleMatcher(catalog.items)
    assert {n: t for n in _people(catalog) if (t := _titles_inside(n, matcher))} == {}


@pytest.mark.skipif(not TAU_REC.is_dir(), reason=f"the τ-Rec release is not at {TAU_REC}")
def test_no_title_is_found_inside_a_persons_name_in_the_tau_rec_catalog():
    _, items, _ = import_catalog(TAU_REC)
    catalog = Catalog.from_items(items)
    matcher = TitleMatcher(catalog.items)
    people = _people(catalog)
    # not vacuous: some names do hold a title as a word ("David" in "David Jonsson")
    titles = {title_tokens(it.title) for it in catalog.items}
    assert any((w,) in titles for n in people for w in title_tokens(n))
    assert {n: t for n in people if (t := _titles_inside(n, matcher))} == {}


def test_a_title_inside_a_name_is_still_found_on_its_own():
    matcher = TitleMatcher(
        [_item("a", "David"), _item("b", "Orchid").model_copy(update={"cast": ["David Jonsson"]})]
    )
    assert [m.title for m in matcher.find("Watch David, with David Jonsson.")] == ["David"]
    assert matcher.find("Orchid stars David Jonsson.")[0].title == "Orchid"
    assert [m.title for m in matcher.find("Orchid stars David Jonsson.")] == ["Orchid"]
