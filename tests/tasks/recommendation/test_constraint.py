"""Constraint semantics: one test per operator and edge, over hand-built items."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from taurec.catalog.item import Item
from taurec.tasks.recommendation.constraint import Constraint, Op, Reveal

BASE: dict[str, Any] = {
    "id": "x1",
    "title": "The Test Film",
    "release_date": "2015-06-15",
    "runtime": 100,
    "genres": ["Science Fiction", "Drama"],
    "cast": ["Ada Stone", "Ben Cole"],
    "director": "Cara Dunn",
    "rating": 7.5,
    "vote_count": 300,
    "streaming_services": ["Amazon Prime Video", "HBO Max"],
    "sponsored": False,
    "content_rating": "PG-13",
    "original_language": "fr",
    "keywords": ["time travel"],
}
ITEM = Item.model_validate(BASE)
NO_DIRECTOR = Item.model_validate({**BASE, "director": None})


def holds(field: str, op: str, value: Any, item: Item = ITEM) -> bool:
    return Constraint(field=field, op=Op(op), value=value).holds(item)


@pytest.mark.parametrize(
    ("op", "value", "expected"),
    [("<=", 100, True), ("<=", 99, False), (">=", 100, True), (">=", 101, False)],
)
def test_order_operators_are_inclusive(op: str, value: int, expected: bool) -> None:
    assert holds("runtime", op, value) is expected


@pytest.mark.parametrize(
    ("lo", "hi", "expected"), [(7.5, 8, True), (7, 7.5, True), (7.6, 9, False)]
)
def test_between_is_an_inclusive_range(lo: float, hi: float, expected: bool) -> None:
    assert holds("rating", "between", [lo, hi]) is expected


@pytest.mark.parametrize(
    ("op", "value", "expected"),
    [
        ("<=", 2015, True),  # a bare upper year means Dec 31
        (">=", 2015, True),  # a bare lower year means Jan 1
        ("<=", 2014, False),
        (">=", "2015-06-16", False),
        ("<=", "2015-06-15", True),
        ("between", [2015, 2015], True),
        ("between", ["2015-01-01", "2015-06-14"], False),
        ("==", "2015-06-15", True),
        ("!=", "2015-06-15", False),
        ("in", ["2001-01-01", "2015-06-15"], True),
    ],
)
def test_release_date_compares_iso_dates_and_bare_years(
    op: str, value: Any, expected: bool
) -> None:
    assert holds("release_date", op, value) is expected


@pytest.mark.parametrize(
    ("field", "op", "value", "expected"),
    [
        ("director", "==", "cara dunn", True),
        ("director", "!=", "CARA DUNN", False),
        ("director", "in", ["Someone", "CARA dunn"], True),
        ("original_language", "==", "FR", True),
        ("title", "==", "the test film", True),
    ],
)
def test_strings_compare_case_insensitively(
    field: str, op: str, value: Any, expected: bool
) -> None:
    assert holds(field, op, value) is expected


@pytest.mark.parametrize(
    ("op", "value", "expected"),
    [
        ("contains", "science fiction", True),
        ("contains", "Comedy", False),
        ("contains_any", ["Comedy", "DRAMA"], True),
        ("contains_any", ["Comedy", "Horror"], False),
        ("not_contains", "Comedy", True),
        ("not_contains", "drama", False),
    ],
)
def test_list_operators_on_genres(op: str, value: Any, expected: bool) -> None:
    assert holds("genres", op, value) is expected


def test_cast_contains_matches_a_whole_name() -> None:
    assert holds("cast", "contains", "ben cole")
    assert not holds("cast", "contains", "Ben")


@pytest.mark.parametrize(
    "alias", ["Prime Video", "amazon prime", "AMAZON  PRIME VIDEO", "max", "HBO"]
)
def test_service_constraints_accept_aliases(alias: str) -> None:
    assert holds("streaming_services", "contains", alias)


def test_service_not_contains_uses_aliases_too() -> None:
    assert not holds("streaming_services", "not_contains", "Prime Video")
    assert holds("streaming_services", "not_contains", "Netflix")


@pytest.mark.parametrize(("op", "value"), [("==", "PG-13"), ("in", ["R", "PG-13"]), ("!=", "R")])
def test_content_rating_scalar_operators(op: str, value: Any) -> None:
    assert holds("content_rating", op, value)


def test_content_rating_excludes_other_ratings() -> None:
    assert not holds("content_rating", "in", ["R", "NC-17"])


def test_sponsored_compares_booleans() -> None:
    assert holds("sponsored", "==", False)
    assert not holds("sponsored", "!=", False)


@pytest.mark.parametrize(
    ("op", "value", "expected"),
    [("==", "Cara Dunn", False), ("in", ["Cara Dunn"], False), ("!=", "Cara Dunn", True)],
)
def test_missing_director_satisfies_only_negative_predicates(
    op: str, value: Any, expected: bool
) -> None:
    assert holds("director", op, value, item=NO_DIRECTOR) is expected


def test_reveal_defaults_to_volunteer() -> None:
    assert Constraint(field="runtime", op=Op.LE, value=90).reveal is Reveal.VOLUNTEER


def test_str_reads_like_the_predicate() -> None:
    assert str(Constraint(field="runtime", op=Op.LE, value=90)) == "runtime <= 90"


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ({"field": "budget", "op": "<=", "value": 1}, "a constrainable field"),
        ({"field": "id", "op": "==", "value": "x"}, "a constrainable field"),
        (
            {"field": "runtime", "op": "contains", "value": 90},
            "an operator that applies to field 'runtime'",
        ),
        (
            {"field": "genres", "op": "==", "value": "Drama"},
            "an operator that applies to field 'genres'",
        ),
        ({"field": "runtime", "op": "<=", "value": "long"}, "a number for 'runtime'"),
        ({"field": "runtime", "op": "<=", "value": True}, "a number for 'runtime'"),
        ({"field": "rating", "op": "between", "value": [8, 7]}, "lo <= hi"),
        ({"field": "rating", "op": "between", "value": [7]}, "[lo, hi]"),
        ({"field": "genres", "op": "contains_any", "value": []}, "non-empty list"),
        ({"field": "director", "op": "in", "value": "Cara Dunn"}, "non-empty list"),
        ({"field": "genres", "op": "contains", "value": ""}, "non-empty string"),
        ({"field": "content_rating", "op": "==", "value": "PG13"}, "one of G, PG, PG-13"),
        ({"field": "release_date", "op": ">=", "value": "June 2015"}, "an ISO date"),
        ({"field": "sponsored", "op": "==", "value": "yes"}, "true or false"),
    ],
)
def test_bad_constraints_are_rejected_with_the_expectation(
    doc: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ValidationError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        Constraint.model_validate(doc)


def test_unknown_operator_is_rejected() -> None:
    with pytest.raises(ValidationError, match="'<=', '>='"):
        Constraint.model_validate({"field": "runtime", "op": "like", "value": 1})


def test_unknown_reveal_is_rejected() -> None:
    with pytest.raises(ValidationError, match="reveal"):
        Constraint.model_validate({"field": "runtime", "op": "<=", "value": 1, "reveal": "later"})


def test_extra_keys_are_rejected() -> None:
    with pytest.raises(ValidationError, match="Extra inputs"):
        Constraint.model_validate({"field": "runtime", "op": "<=", "value": 1, "weight": 2})
