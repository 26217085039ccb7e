"""hints: a rejection for an unstated constraint points a direction, never the predicate."""

from __future__ import annotations

import random
import re
from datetime import date
from typing import Any

import pytest

from taurec.catalog.item import ContentRating, Item
from taurec.server.recommendation.simulator.hints import (
    _GENERIC,
    _UNWANTED_GENRE,
    BANK,
    hint,
    hints_for,
)
from taurec.server.recommendation.simulator.phrasing import LANGUAGE_NAMES, value_terms
from taurec.tasks.recommendation.constraint import (
    CONSTRAINABLE_FIELDS,
    Constraint,
    Op,
    _allowed_ops,
)

ALL_HINTS = sorted(
    {h for bank in (*BANK.values(), *_UNWANTED_GENRE.values(), _GENERIC) for h in bank}
)

FIELD_WORDS = re.compile(
    r"\b(?:runtimes?|ratings?|rated|votes?|released?|dates?|years?|genres?|cast|directors?"
    r"|directed|services?|streaming|streams?|sponsored|sponsors?|promoted|languages?|keywords?"
    r"|titles?|content|minutes?|hours?|subtitles?|english|netflix)\b",
    re.I,
)
OPERATOR_WORDS = (
    "at least", "at most", "or less", "or more", "or later", "or earlier", "more than",
    "less than", "longer than", "shorter than", "between", "exactly", "no higher", "no lower",
    " under ", " over ", "<", ">", "=", "maximum", "minimum", "limit",
)  # fmt: skip
NUMBER_WORDS = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty"
    r"|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|half|dozen)\b",
    re.I,
)


def test_every_act_of_the_bank_has_at_least_three_variants():
    assert all(len(v) >= 3 for v in (*BANK.values(), *_UNWANTED_GENRE.values(), _GENERIC))


@pytest.mark.parametrize("text", ALL_HINTS)
def test_no_hint_holds_a_number_field_name_or_operator(text):
    low = f" {text.lower()} "
    assert not re.search(r"\d", text)
    assert not NUMBER_WORDS.search(text)
    assert not FIELD_WORDS.search(text)
    assert not [w for w in OPERATOR_WORDS if w in low]


@pytest.mark.parametrize("text", ALL_HINTS)
def test_no_hint_names_a_genre_language_or_rating_code(text):
    genres = ("comed", "horror", "romanc", "romantic", "animat", "cartoon", "drama", "thriller")
    assert not [g for g in genres if g in text.lower()]
    assert not [n for n in LANGUAGE_NAMES.values() if n.lower() in text.lower()]
    assert not re.search(r"\b(?:G|PG|PG-13|R|NC-17|NR)\b", text)


def _item(**fields: Any) -> Item:
    record: dict[str, Any] = {
        "id": "x",
        "title": "Some Film",
        "release_date": date(2000, 1, 1),
        "runtime": 100,
        "genres": ["Drama"],
        "rating": 6.0,
        "vote_count": 100,
        "content_rating": "PG",
    }
    return Item(**(record | fields))


VARIANTS: dict[str, list[Any]] = {
    "title": ["Night Train", "Other Film"],
    "release_date": [date(1950, 1, 1), date(2015, 1, 1), date(2024, 6, 1)],
    "runtime": [30, 95, 100, 200],
    "genres": [["Comedy"], ["Horror"], ["Animation", "Family"]],
    "cast": [["Halvard Morrard"], ["Ines Nevello"], []],
    "director": ["Otto Marovic", "Talia Selton", None],
    "rating": [1.0, 6.5, 9.9],
    "vote_count": [5, 1000, 1_000_000],
    "streaming_services": [["Netflix"], ["Peacock"], []],
    "sponsored": [True, False],
    "content_rating": [r.value for r in ContentRating],
    "original_language": ["ko", "en", "ja"],
    "keywords": [["heist"], ["space"]],
}
OPERANDS: dict[str, list[Any]] = {
    "title": ["Night Train", "Home"],
    "release_date": [2015, 2020],
    "runtime": [95, 120],
    "genres": ["Horror", "Comedy"],
    "cast": ["Halvard Morrard", "Kasimir Oakard"],
    "director": ["Otto Marovic", "Oskar Fenridge"],
    "rating": [6.5, 8],
    "vote_count": [1000, 5000],
    "streaming_services": ["Netflix", "Hulu"],
    "sponsored": [False, True],
    "content_rating": ["PG", "PG-13"],
    "original_language": ["ko", "es"],
    "keywords": ["heist", "wedding"],
}


def _misses() -> list[tuple[Constraint, Item]]:
    out = []
    for field in sorted(CONSTRAINABLE_FIELDS):
        a, b = OPERANDS[field]
        for op in sorted(_allowed_ops(field)):
            c = Constraint(
                field=field,
                op=op,
                value=[a, b] if op in (Op.IN, Op.CONTAINS_ANY, Op.BETWEEN) else a,
            )
            out += [(c, it) for v in VARIANTS[field] if not c.holds(it := _item(**{field: v}))]
    return out


def test_every_field_and_operator_has_a_title_that_misses_it():
    assert {(c.field, c.op) for c, _ in _misses()} == {
        (f, op) for f in CONSTRAINABLE_FIELDS for op in _allowed_ops(f)
    }


@pytest.mark.parametrize(
    ("c", "item"), _misses(), ids=lambda x: str(x) if isinstance(x, Constraint) else ""
)
def test_hints_never_contain_the_constraint_value(c, item):
    for text in hints_for(c, item):
        for term in value_terms(c):
            assert not re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.I), (term, text)


@pytest.mark.parametrize(
    ("c", "item", "expected"),
    [
        (
            Constraint(field="runtime", op="<=", value=100),
            _item(runtime=150),
            "big time commitment",
        ),
        (Constraint(field="runtime", op=">=", value=120), _item(runtime=80), "sink into"),
        (Constraint(field="rating", op=">=", value=7), _item(rating=5.0), "mixed things"),
        (
            Constraint(field="genres", op="not_contains", value="Horror"),
            _item(genres=["Horror"]),
            "too intense",
        ),
        (
            Constraint(field="streaming_services", op="contains_any", value=["Netflix"]),
            _item(streaming_services=["Hulu"]),
            "not sure I can get that one",
        ),
        (
            Constraint(field="content_rating", op="in", value=["G", "PG"]),
            _item(content_rating="R"),
            "too much for my household",
        ),
        (Constraint(field="content_rating", op="==", value="R"), _item(content_rating="G"), "tame"),
        (
            Constraint(field="release_date", op=">=", value=2015),
            _item(release_date=date(1990, 5, 5)),
            "dated",
        ),
        (
            Constraint(field="runtime", op="between", value=[90, 115]),
            _item(runtime=60),
            "sink into",
        ),
    ],
)
def test_hint_points_the_way_the_title_misses(c, item, expected):
    assert any(expected in h for h in hints_for(c, item))


def test_hint_choice_depends_only_on_the_rng():
    c, item = Constraint(field="rating", op=">=", value=7), _item(rating=5.0)
    first = [hint(c, item, random.Random(3)) for _ in range(5)]
    assert first == [hint(c, item, random.Random(3)) for _ in range(5)]
