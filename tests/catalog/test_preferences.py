"""Utilities 0-100 from a hidden preference model: deterministic and attribute-driven."""

from __future__ import annotations

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.preferences import PreferenceModel, utility

ITEM = ChoiceItem(id="m1", title="A", categories=["Comedy"], year=2000, runtime=100, rating=6.5)


def test_an_indifferent_model_gives_the_neutral_50() -> None:
    assert utility(PreferenceModel(rating_weight=0), ITEM) == 50.0


def test_a_liked_category_raises_utility_and_a_disliked_one_lowers_it() -> None:
    liked = PreferenceModel(categories={"Comedy": 0.8}, rating_weight=0)
    disliked = PreferenceModel(categories={"Comedy": -0.8}, rating_weight=0)
    assert utility(liked, ITEM) == 70.0
    assert utility(disliked, ITEM) == 30.0


def test_higher_rated_items_score_higher_when_rating_matters() -> None:
    model = PreferenceModel(rating_weight=1.0)
    better = ITEM.model_copy(update={"rating": 8.0})
    assert utility(model, better) > utility(model, ITEM)


def test_the_preferred_era_and_runtime_score_highest() -> None:
    model = PreferenceModel(
        year=2000, year_weight=1, runtime=100, runtime_weight=1, rating_weight=0
    )
    far = ITEM.model_copy(update={"year": 1975, "runtime": 160})
    assert utility(model, ITEM) == 100.0
    assert utility(model, far) == 0.0


def test_price_over_the_ceiling_lowers_utility() -> None:
    model = PreferenceModel(price_ceiling=50, price_weight=1, rating_weight=0)
    cheap = ITEM.model_copy(update={"price": 5.0})
    dear = ITEM.model_copy(update={"price": 80.0})
    assert utility(model, cheap) > 50 > utility(model, dear)


def test_utilities_are_half_points_within_0_and_100() -> None:
    model = PreferenceModel(categories={"Comedy": 1.0}, keywords={"x": 1}, base=2, rating_weight=1)
    item = ITEM.model_copy(update={"keywords": ["x"], "rating": 9.9})
    value = utility(model, item)
    assert value == 100.0
    assert (utility(PreferenceModel(base=0.013, rating_weight=0), ITEM) * 2) % 1 == 0
