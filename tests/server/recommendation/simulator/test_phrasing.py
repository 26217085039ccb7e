"""phrasing: every constraint the schema allows has a plain-language statement."""

from __future__ import annotations

from typing import Any

import pytest

from taurec.server.recommendation.simulator.phrasing import (
    describe,
    describe_all,
    number_words,
    qualifier,
    spoken_values,
)
from taurec.tasks.recommendation.constraint import (
    CONSTRAINABLE_FIELDS,
    Constraint,
    Op,
    _allowed_ops,
)

# one sample operand per field, shaped per operator below
SAMPLE: dict[str, list[Any]] = {
    "title": ["Night Train", "Home"],
    "release_date": [2015, 2020],
    "runtime": [90, 120],
    "genres": ["Comedy", "Horror"],
    "cast": ["Halvard Morrard", "Ines Nevello"],
    "director": ["Otto Marovic", "Talia Selton"],
    "rating": [6.5, 8],
    "vote_count": [1000, 5000],
    "streaming_services": ["Netflix", "Hulu"],
    "sponsored": [False, True],
    "content_rating": ["PG", "PG-13"],
    "original_language": ["ko", "ja"],
    "keywords": ["heist", "wedding"],
}


def _every_constraint() -> list[Constraint]:
    out = []
    for field in sorted(CONSTRAINABLE_FIELDS):
        a, b = SAMPLE[field]
        for op in sorted(_allowed_ops(field)):
            value = [a, b] if op in (Op.IN, Op.CONTAINS_ANY, Op.BETWEEN) else a
            out.append(Constraint(field=field, op=op, value=value))
    return out


def test_samples_cover_every_constrainable_field():
    assert set(SAMPLE) == CONSTRAINABLE_FIELDS


@pytest.mark.parametrize("c", _every_constraint(), ids=str)
def test_every_field_and_operator_is_described_with_its_values(c):
    text = describe(c)
    assert text and text == text.strip() and not text.endswith(".")
    for word in spoken_values(c):
        assert word.lower() in text.lower(), (word, text)
    for word in spoken_values(c):
        assert word.lower() in qualifier(c).lower()


@pytest.mark.parametrize(
    ("field", "op", "value", "expected"),
    [
        ("genres", "contains", "Comedy", "I want a comedy"),
        ("runtime", "<=", 100, "nothing longer than 100 minutes"),
        ("content_rating", "in", ["G", "PG"], "it has to be rated G or PG"),
        ("release_date", ">=", 2015, "something from 2015 or later"),
        (
            "streaming_services",
            "contains_any",
            ["Netflix", "Hulu"],
            "it needs to be on Netflix or Hulu",
        ),
        ("original_language", "==", "ko", "something originally in Korean"),
        ("director", "!=", "Otto Marovic", "not directed by Otto Marovic"),
        ("genres", "not_contains", "Horror", "I don't want a horror movie"),
        ("runtime", "between", [90, 115], "something between 90 and 115 minutes long"),
        ("rating", ">=", 6.0, "something rated at least 6 out of 10 by audiences"),
        ("vote_count", ">=", 1000, "something with at least 1,000 audience votes"),
        ("release_date", "<=", "2010-12-31", "something from 2010 or earlier"),
        ("release_date", ">=", "2015-06-01", "something from June 1, 2015 or later"),
        ("content_rating", "!=", "R", "nothing rated R"),
        ("sponsored", "==", False, "nothing sponsored or promoted"),
    ],
)
def test_describe_reads_as_a_person_would_say_it(field, op, value, expected):
    assert describe(Constraint(field=field, op=op, value=value)) == expected


def test_describe_all_merges_wanted_genres_into_one_head():
    cs = [
        Constraint(field="genres", op="contains", value="Romance"),
        Constraint(field="genres", op="contains", value="Comedy"),
        Constraint(field="runtime", op="<=", value=100),
    ]
    assert (
        describe_all(cs) == "I want a romance that's also a comedy and no longer than 100 minutes."
    )


def test_describe_all_without_a_genre_starts_with_a_plain_request():
    cs = [Constraint(field="original_language", op="==", value="ja")]
    assert describe_all(cs) == "I'm looking for a movie originally in Japanese."


@pytest.mark.parametrize(
    ("n", "words"),
    [(7, "seven"), (95, "ninety-five"), (110, "one hundred ten"), (2005, "two thousand five")],
)
def test_number_words(n, words):
    assert number_words(n) == words
