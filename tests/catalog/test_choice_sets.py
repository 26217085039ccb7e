"""Categories of at least 15 items, and seeded choice sets of up to 30."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from support.streams import movie_items

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.choice_sets import (
    Category,
    category_seed,
    movie_categories,
    product_categories,
    sample_choice_set,
)


def test_a_category_with_fewer_than_15_items_is_a_clear_error() -> None:
    with pytest.raises(
        ValidationError, match=r"category 'genre:war' has 12 distinct items; expected at least 15"
    ):
        Category(id="genre:war", name="War", item_ids=[f"i{k}" for k in range(12)])


def test_movie_categories_all_hold_at_least_15_items() -> None:
    cats = movie_categories(movie_items())
    assert len(cats) >= 20
    assert min(len(c.item_ids) for c in cats) >= 15


def test_movie_categories_include_genres_eras_and_themes() -> None:
    kinds = {c.id.split(":", 1)[0] for c in movie_categories(movie_items())}
    assert kinds == {"genre", "genre-era", "theme"}


def test_a_too_broad_category_is_pruned_by_max_items() -> None:
    cats = movie_categories(movie_items(), max_items=40)
    assert all(len(c.item_ids) <= 40 for c in cats)
    assert "genre:drama" not in {c.id for c in cats}


def test_a_choice_set_has_30_distinct_items_of_its_category() -> None:
    cat = next(c for c in movie_categories(movie_items()) if len(c.item_ids) > 30)
    ids = sample_choice_set(cat, seed=7)
    assert len(ids) == len(set(ids)) == 30
    assert set(ids) <= set(cat.item_ids)


def test_a_small_category_gives_all_its_items() -> None:
    cat = Category(id="x", name="X", item_ids=[f"i{k}" for k in range(20)])
    assert sorted(sample_choice_set(cat, seed=1)) == sorted(cat.item_ids)


def test_choice_sets_are_deterministic_per_seed_and_differ_across_seeds() -> None:
    cat = next(c for c in movie_categories(movie_items()) if len(c.item_ids) > 40)
    assert sample_choice_set(cat, 3) == sample_choice_set(cat, 3)
    assert sample_choice_set(cat, 3) != sample_choice_set(cat, 4)


def test_the_episode_seed_adds_the_category_md5() -> None:
    # md5("genre:comedy") starts with these 8 hex digits
    import hashlib

    head = int(hashlib.md5(b"genre:comedy").hexdigest()[:8], 16)
    assert category_seed(5, "genre:comedy") == 5 + head


def test_product_categories_drop_the_top_two_levels_and_keep_deep_groups() -> None:
    items = [
        ChoiceItem(
            id=f"a{k}", title=f"Rack {k}", categories=["Office", "Furniture", "Racks", "Wall"]
        )
        for k in range(16)
    ] + [
        ChoiceItem(id=f"b{k}", title=f"Desk {k}", categories=["Office", "Furniture", "Desks"])
        for k in range(5)
    ]
    cats = product_categories(items)
    assert [c.name for c in cats] == ["Wall"]
    assert len(cats[0].item_ids) == 16
