"""A CRS's titles grounded to the right film: every MovieLens-100K film, named as ReDial
writes its movie mentions ("The Usual Suspects (1995)": the article in front, the year in
brackets) in the kind of sentence a CRS says, is read by the harness's title matcher as
that film and no other; a longer title that holds a MovieLens title ("Avengers: Infinity
War (2018)") names none of it; a title two films share needs its year. MovieLens is read
from the recbole wheel at run time (never shipped); the tests skip without it.
`TAUREC_REDIAL_MOVIES` may name ReDial's own `movies_with_mentions.csv` to measure its
names too."""

from __future__ import annotations

import csv
import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

from taurec.catalog.builders.movielens_catalog import movielens_catalog
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.movielens_mapping import normalise_title
from taurec.catalog.store import Catalog

SENTENCES = (
    "Have you seen {}?",
    "I think you would like {}.",
    "{} is a good one!",
    "How about {} ?",
)
_LAST_ARTICLE = re.compile(r"^(.*), (The|A|An|L'|La|Le|Les|Il|El|Die|Der|Das)$")


@pytest.fixture(scope="module")
def films() -> Catalog:
    pytest.importorskip("recbole", exc_type=ImportError)
    meta, items = movielens_catalog("movielens:recbole")
    return Catalog.from_items(items, meta)


@pytest.fixture(scope="module")
def matcher(films: Catalog) -> TitleMatcher:
    return TitleMatcher(films.items)


def _as_redial_names(title: str, year: int) -> str:
    """A MovieLens title as ReDial names a movie: the article put first, the year after."""
    moved = _LAST_ARTICLE.match(title.strip())
    name = f"{moved.group(2)} {moved.group(1)}" if moved else title.strip()
    return f"{name} ({year})"


def _grounded(matcher: TitleMatcher, text: str) -> list[str]:
    """The items a harness takes the text to name: mentions naming exactly one item."""
    return [m.item_id for m in matcher.find_written(text) if m.item_id is not None]


def test_every_film_named_as_redial_names_it_is_grounded_to_itself(films, matcher):
    right = wrong = 0
    misses = []
    for k, item in enumerate(films.items):
        text = SENTENCES[k % len(SENTENCES)].format(
            _as_redial_names(item.title, item.release_date.year)
        )
        found = _grounded(matcher, text)
        if found == [item.id]:
            right += 1
        elif any(i != item.id for i in found):
            wrong += 1
            misses.append(f"WRONG {text!r}: {found}")
        else:
            misses.append(f"MISSED {text!r}")
    n = len(films.items)
    print(f"\n{right} of {n} right ({right / n:.1%}), {wrong} wrong")
    assert right / n >= 0.95 and wrong / n <= 0.01, misses[:20]


@pytest.mark.parametrize(
    "text",
    [
        "Have you seen Avengers: Infinity War (2018)?",
        "Toy Story 3 (2010) is a good one!",
        "How about The Usual Suspects 2 (2031)?",
    ],
)
def test_a_longer_title_holding_a_movielens_title_names_no_film(matcher, text):
    assert _grounded(matcher, text) == []


def test_a_title_two_films_share_is_grounded_only_with_its_year(films, matcher):
    by_title = defaultdict(list)
    for item in films.items:
        by_title[normalise_title(item.title)[0]].append(item)
    shared = [
        group
        for group in by_title.values()
        if len({i.release_date.year for i in group}) == len(group) > 1
    ]
    assert shared, "MovieLens-100K holds titles two films share"
    for group in shared:
        plain = group[0].title
        assert _grounded(matcher, f"Have you seen {_as_redial_names(plain, 0)[:-4].strip()}?") == []
        for item in group:
            named = _as_redial_names(item.title, item.release_date.year)
            assert _grounded(matcher, f"Have you seen {named}?") == [item.id]


def test_redials_own_movie_names_ground_to_movielens(films, matcher):
    path = os.environ.get("TAUREC_REDIAL_MOVIES")
    if not path or not Path(path).is_file():
        pytest.skip("TAUREC_REDIAL_MOVIES does not name ReDial's movies_with_mentions.csv")
    by_key = defaultdict(list)
    for item in films.items:
        key, year = normalise_title(item.title)
        by_key[key].append((year or item.release_date.year, item.id))
    held = right = wrong = 0
    with open(path, encoding="utf-8") as f:
        for k, row in enumerate(csv.DictReader(f)):
            key, year = normalise_title(row["movieName"])
            if year is None:
                continue
            ids = [i for y, i in by_key.get(key, []) if abs(y - year) <= 1]
            if len(ids) != 1:
                continue
            held += 1
            found = _grounded(matcher, SENTENCES[k % len(SENTENCES)].format(row["movieName"]))
            right += found == ids
            wrong += any(i != ids[0] for i in found)
    print(f"\nReDial's names of films MovieLens-100K holds: {right} of {held} right, {wrong} wrong")
    assert held and right / held >= 0.95 and wrong / held <= 0.01
