"""The spellings text may name a catalog title by (catalog/title_forms.py)."""

from __future__ import annotations

import pytest

from taurec.catalog.title_forms import ARTICLES, article_first, reading_forms, reading_keys
from taurec.catalog.tokens import title_tokens


def test_a_year_in_brackets_at_the_end_is_not_part_of_the_name():
    assert reading_forms("Toy Story (1995)") == ["Toy Story (1995)", "Toy Story"]
    assert reading_forms("Birdman (2014 film)") == ["Birdman (2014 film)", "Birdman"]


def test_a_trailing_article_is_also_read_in_front():
    assert "The Usual Suspects" in reading_forms("Usual Suspects, The (1995)")
    assert "Il Postino" in reading_forms("Postino, Il")


@pytest.mark.parametrize("article", ARTICLES)
def test_every_article_a_catalog_moves_last_is_moved_back(article):
    fronted = article_first(f"Long Night, {article.capitalize()}")
    joined = "" if article.endswith("'") else " "
    assert fronted is not None and fronted.casefold() == f"{article}{joined}long night"


def test_l_apostrophe_joins_the_word_after_it():
    assert article_first("Avventura, L'") == "L'Avventura"
    assert (("lavventura",), "L'Avventura") in reading_keys("Avventura, L' (1960)")


def test_a_second_name_in_brackets_is_a_reading_form_too():
    forms = reading_forms("Star Maker, The (Uomo delle stelle, L')")
    assert {"The Star Maker", "L'Uomo delle stelle"} <= set(forms)
    assert "Se7en" in reading_forms("Seven (Se7en)")


def test_commas_inside_a_title_move_nothing():
    assert reading_keys("Good Luck, Have Fun, Don't Die") == []
    assert article_first("Crazy, Stupid, Love") is None


def test_a_title_of_one_form_has_no_other_keys():
    assert reading_keys("Hamnet") == [] and reading_keys("(500) Days of Summer") == []


def test_no_key_repeats_the_titles_own_tokens():
    for title in ("Toy Story (1995)", "Usual Suspects, The (1995)", "Seven (Se7en)"):
        keys = [k for k, _ in reading_keys(title)]
        assert title_tokens(title) not in keys and len(keys) == len(set(keys))
