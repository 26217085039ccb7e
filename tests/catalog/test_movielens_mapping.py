"""Mapping MovieLens movies onto catalog items by title and year (fixtures written here)."""

from pathlib import Path

import pytest
from support.episodes import ITEMS

from taurec.catalog.errors import DataError
from taurec.catalog.interaction_sources import load_interactions
from taurec.catalog.movielens import read_movielens
from taurec.catalog.movielens_mapping import map_onto_catalog, normalise_title

FLAGS = "|0" * 19
U_ITEM = [
    f"1|Paper Lanterns (2019)|01-Jan-2019||http://x{FLAGS}",
    f"2|Quiet Orchard, The (2020)|01-Jan-2020||http://x{FLAGS}",  # a year off: still it
    f"3|Neon Alibi (1970)|01-Jan-1970||http://x{FLAGS}",  # same title, another film
    f"4|Never In Any Catalog (1990)|01-Jan-1990||http://x{FLAGS}",
]
U_DATA = [
    "7\t1\t5\t881250949",
    "7\t2\t3\t881250950",
    "7\t3\t4\t881250951",
    "9\t4\t2\t881250900",
]


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "u.item").write_text("\n".join(U_ITEM) + "\n", encoding="latin-1")
    (tmp_path / "u.data").write_text("\n".join(U_DATA) + "\n", encoding="latin-1")
    return tmp_path


def test_titles_are_compared_without_case_accents_or_a_trailing_article() -> None:
    assert normalise_title("Usual Suspects, The (1995)") == ("the usual suspects", 1995)
    assert normalise_title("Amélie!") == ("amelie", None)


def test_movies_map_onto_the_catalog_items_of_the_same_title_and_year(tmp_path: Path) -> None:
    mapped, report = map_onto_catalog(read_movielens(_folder(tmp_path)), ITEMS)
    assert [i.id for i in mapped.items] == ["m1", "m2"]
    assert mapped.items[0].title == "Paper Lanterns" and mapped.items[0].categories == ["Comedy"]
    assert (report.movies, report.mapped_movies, report.records, report.kept_records) == (
        4,
        2,
        4,
        2,
    )
    assert mapped.user_ids == ["7"]  # user 9 rated only an unmapped movie
    assert "2 of 4 movies mapped" in report.line()


def test_a_catalog_that_matches_nothing_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="none of its 4 movies matches a catalog item"):
        load_interactions(f"movielens-catalog:{_folder(tmp_path)}")  # the synthetic built-in
