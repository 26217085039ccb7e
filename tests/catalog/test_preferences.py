"""Utilities 0-100 from a hidden preference model: deterministic and attribute-driven, on
the linear curve (the default) or the logistic one."""

from __future__ import annotations

import math

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.preferences import LOGISTIC_SLOPE, PreferenceModel, idiosyncratic, utility

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


# --- the logistic curve (opt-in) -----------------------------------------------------------

#: The JSON keys of a default model, as before the logistic curve existed.
DEFAULT_KEYS = {
    "categories", "keywords", "year", "year_weight", "runtime", "runtime_weight",
    "rating_weight", "languages", "language_weight", "makers", "price_ceiling",
    "price_weight", "base",
}  # fmt: skip


def test_a_default_models_json_is_as_before_the_logistic_curve() -> None:
    assert set(PreferenceModel().model_dump(mode="json")) == DEFAULT_KEYS


def test_a_logistic_model_names_its_curve_idiosyncrasy_and_seed_in_its_json() -> None:
    model = PreferenceModel(curve="logistic", idiosyncrasy=0.5, seed=7)
    dumped = model.model_dump(mode="json")
    assert (dumped["curve"], dumped["idiosyncrasy"], dumped["seed"]) == ("logistic", 0.5, 7)
    assert PreferenceModel.model_validate_json(model.model_dump_json()) == model


def test_the_logistic_curve_is_100_sigmoid_of_the_slope_times_the_sum_in_tenths() -> None:
    model = PreferenceModel(categories={"Comedy": 0.8}, rating_weight=0, curve="logistic")
    assert utility(model, ITEM) == 80.2  # 100 / (1 + exp(-1.75 × 0.8)) = 80.22
    assert utility(PreferenceModel(rating_weight=0, curve="logistic"), ITEM) == 50.0


def test_the_logistic_curve_does_not_clip_where_the_linear_one_does() -> None:
    strong = {"categories": {"Comedy": 1.0}, "keywords": {"x": 1}, "base": 0.5, "rating_weight": 1}
    item = ITEM.model_copy(update={"keywords": ["x"], "rating": 9.9})
    assert utility(PreferenceModel(**strong), item) == 100.0
    assert 99 < utility(PreferenceModel(**strong, curve="logistic"), item) < 100


def test_the_idiosyncratic_term_is_fixed_per_seed_and_item_and_within_1() -> None:
    values = [idiosyncratic(7, f"m{k}") for k in range(200)]
    assert all(-1 <= v <= 1 for v in values) and len(set(values)) == 200
    assert idiosyncratic(7, "m1") == idiosyncratic(7, "m1") != idiosyncratic(8, "m1")


def test_idiosyncrasy_moves_a_utility_by_its_hashed_term() -> None:
    plain = PreferenceModel(rating_weight=0, curve="logistic")
    quirky = PreferenceModel(rating_weight=0, curve="logistic", idiosyncrasy=1.0, seed=7)
    want = round(1000 / (1 + math.exp(-LOGISTIC_SLOPE * idiosyncratic(7, ITEM.id)))) / 10
    assert utility(quirky, ITEM) == want != utility(plain, ITEM)
