"""A pool of distinct personas with hidden tastes, deterministic per seed."""

from __future__ import annotations

import re

import pytest
from support.streams import movie_items

from taurec.catalog.personas import persona_pool


def test_a_pool_has_distinct_ids_and_descriptions() -> None:
    pool = persona_pool(movie_items(), 30, seed=0)
    assert len({p.id for p in pool}) == 30
    assert len({p.description for p in pool}) == 30


def test_the_pool_is_deterministic_per_seed() -> None:
    assert persona_pool(movie_items(), 5, 1) == persona_pool(movie_items(), 5, 1)
    assert persona_pool(movie_items(), 5, 1) != persona_pool(movie_items(), 5, 2)


def test_each_persona_likes_and_dislikes_categories_of_the_items() -> None:
    genres = {g for i in movie_items() for g in i.categories}
    for p in persona_pool(movie_items(), 10, 0):
        assert p.preferences is not None
        assert any(w > 0 for w in p.preferences.categories.values())
        assert any(w < 0 for w in p.preferences.categories.values())
        assert set(p.preferences.categories) <= genres


def test_a_description_names_a_liked_genre_but_no_number() -> None:
    for p in persona_pool(movie_items(), 10, 0):
        assert p.preferences is not None
        liked = [c.lower() for c, w in p.preferences.categories.items() if w > 0]
        assert liked[0] in p.description
        assert not re.search(r"\d", p.description)


def test_an_empty_pool_is_refused() -> None:
    with pytest.raises(ValueError, match="expected at least 1"):
        persona_pool(movie_items(), 0, 0)


def test_the_linear_pool_is_the_default() -> None:
    assert persona_pool(movie_items(), 5, 0) == persona_pool(movie_items(), 5, 0, curve="linear")


def test_a_logistic_pool_has_strong_tastes_and_a_small_weight_on_acclaim() -> None:
    pool = persona_pool(movie_items(), 30, 0, curve="logistic")
    assert len({p.description for p in pool}) == 30
    for p in pool:
        prefs = p.preferences
        assert prefs is not None and prefs.curve == "logistic"
        assert prefs.rating_weight <= 0.4 and prefs.idiosyncrasy > 0
        assert sum(w > 0 for w in prefs.categories.values()) == 4
        assert sum(w < 0 for w in prefs.categories.values()) == 4
        assert len(prefs.keywords) == 30 and prefs.year_weight >= 0.4
    assert len({p.preferences.seed for p in pool if p.preferences}) == 30


def test_a_logistic_persona_is_described_by_its_strongest_like() -> None:
    for p in persona_pool(movie_items(), 10, 0, curve="logistic"):
        assert p.preferences is not None
        strongest = max(p.preferences.categories.items(), key=lambda cw: cw[1])[0]
        assert strongest.lower() in p.description
        assert not re.search(r"\d", p.description)
