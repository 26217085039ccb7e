from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from taurec.catalog.filter import FilterError, FilterSpec
from taurec.catalog.item import Item
from taurec.catalog.services import service_key
from taurec.catalog.store import Catalog


def ids(cat: Catalog, **spec: Any) -> list[str]:
    return [s.id for s in cat.filter(FilterSpec(limit=100, **spec)).items]


@pytest.fixture
def shelf(make_item, make_catalog) -> Catalog:
    return make_catalog(
        make_item(
            "comedy_short",
            genres=["Comedy"],
            runtime=85,
            rating=7.5,
            vote_count=900,
            release_date="1995-06-01",
            content_rating="PG",
            streaming_services=["Netflix"],
            director="Nora Ephron",
            cast=["Meg Ryan", "Tom Hanks"],
        ),
        make_item(
            "drama_long",
            genres=["Drama", "War"],
            runtime=170,
            rating=8.6,
            vote_count=5000,
            release_date="1998-07-24",
            content_rating="R",
            streaming_services=["Prime Video"],
            director="Steven Spielberg",
            cast=["Tom Hanks", "Matt Damon"],
        ),
        make_item(
            "romcom",
            genres=["Comedy", "Romance"],
            runtime=105,
            rating=6.9,
            vote_count=300,
            release_date="2001-12-31",
            content_rating="PG-13",
            streaming_services=["HBO Max", "Hulu"],
            sponsored=True,
        ),
        make_item(
            "family",
            genres=["Animation", "Family"],
            runtime=95,
            rating=8.1,
            vote_count=3000,
            release_date="2002-01-01",
            content_rating="G",
        ),
    )


def test_empty_spec_matches_everything(shelf):
    assert sorted(ids(shelf)) == ["comedy_short", "drama_long", "family", "romcom"]


def test_genres_any_needs_one_listed_genre(shelf):
    assert sorted(ids(shelf, genres_any=["Romance", "War"])) == ["drama_long", "romcom"]


def test_genres_all_needs_every_listed_genre(shelf):
    assert ids(shelf, genres_all=["Comedy", "Romance"]) == ["romcom"]


def test_genres_none_excludes_listed_genres(shelf):
    assert sorted(ids(shelf, genres_none=["Comedy", "War"])) == ["family"]


def test_genre_names_compare_case_insensitively(shelf):
    assert ids(shelf, genres_all=["  WAR "]) == ["drama_long"]


def test_runtime_bounds_are_inclusive(shelf):
    assert sorted(ids(shelf, runtime_min=95, runtime_max=105)) == ["family", "romcom"]


def test_content_ratings_lists_allowed_ratings(shelf):
    assert sorted(ids(shelf, content_ratings=["G", "PG"])) == ["comedy_short", "family"]


def test_min_rating_is_inclusive(shelf):
    assert sorted(ids(shelf, min_rating=8.1)) == ["drama_long", "family"]


def test_min_votes_is_inclusive(shelf):
    assert sorted(ids(shelf, min_votes=3000)) == ["drama_long", "family"]


def test_services_any_accepts_aliases(shelf):
    assert sorted(ids(shelf, services_any=["amazon prime", "max"])) == ["drama_long", "romcom"]


def test_release_bounds_are_inclusive_iso_dates(shelf):
    got = ids(shelf, released_after="1998-07-24", released_before="2001-12-31")
    assert sorted(got) == ["drama_long", "romcom"]


def test_director_matches_the_whole_name_case_insensitively(shelf):
    assert ids(shelf, director="steven spielberg") == ["drama_long"]
    assert ids(shelf, director="Spielberg") == []


def test_cast_member_matches_any_billed_actor(shelf):
    assert sorted(ids(shelf, cast_member="TOM HANKS")) == ["comedy_short", "drama_long"]


def test_exclude_ids_leaves_items_out(shelf):
    assert sorted(ids(shelf, exclude_ids=["romcom", "family", "not_an_id"])) == [
        "comedy_short",
        "drama_long",
    ]


def test_predicates_combine_with_and(shelf):
    assert ids(shelf, genres_any=["Comedy"], min_rating=7, runtime_max=90) == ["comedy_short"]


def test_default_sort_is_most_votes_first(shelf):
    assert ids(shelf) == ["drama_long", "family", "comedy_short", "romcom"]


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("rating", ["romcom", "comedy_short", "family", "drama_long"]),
        ("-rating", ["drama_long", "family", "comedy_short", "romcom"]),
        ("runtime", ["comedy_short", "family", "romcom", "drama_long"]),
        ("-release_date", ["family", "romcom", "drama_long", "comedy_short"]),
        ("popularity", ["romcom", "comedy_short", "family", "drama_long"]),
        ("title", ["comedy_short", "drama_long", "family", "romcom"]),
    ],
)
def test_sort_orders_results(shelf, sort, expected):
    assert ids(shelf, sort=sort) == expected


def test_sort_ties_break_by_id_in_both_directions(make_item, make_catalog):
    cat = make_catalog(*(make_item(i, rating=7.0) for i in ["c", "a", "b"]))
    assert ids(cat, sort="rating") == ["a", "b", "c"]
    assert ids(cat, sort="-rating") == ["a", "b", "c"]


def test_equal_titles_sort_by_id_even_descending(make_item, make_catalog):
    cat = make_catalog(*(make_item(i, title="Same") for i in ["c", "a", "b"]))
    assert ids(cat, sort="-title") == ["a", "b", "c"]


def test_page_reports_total_and_compact_summaries(shelf):
    page = shelf.filter(FilterSpec(genres_any=["Comedy"], limit=1, sort="-rating"))
    assert page.total == 2
    summary = page.items[0]
    assert (summary.id, summary.year, summary.runtime) == ("comedy_short", 1995, 85)
    assert summary.streaming_services == ["Netflix"]
    assert page.next_cursor is not None


def test_next_cursor_is_none_on_the_last_page(shelf):
    assert shelf.filter(FilterSpec(limit=4)).next_cursor is None


def test_cursor_continues_where_the_last_page_ended(shelf):
    first = shelf.filter(FilterSpec(limit=3))
    rest = shelf.filter(FilterSpec(limit=3, cursor=first.next_cursor))
    assert [s.id for s in first.items + rest.items] == ids(shelf)
    assert rest.next_cursor is None


def test_garbage_cursor_is_a_filter_error(shelf):
    with pytest.raises(FilterError, match="cursor 'not-a-cursor' is not valid"):
        shelf.filter(FilterSpec(cursor="not-a-cursor"))


def test_cursor_from_another_filter_is_a_filter_error(shelf):
    cursor = shelf.filter(FilterSpec(limit=1)).next_cursor
    with pytest.raises(FilterError, match="same filter"):
        shelf.filter(FilterSpec(limit=1, cursor=cursor, sort="title"))


def test_unknown_names_match_nothing_and_warn(shelf):
    page = shelf.filter(FilterSpec(genres_any=["Sci-Fi"], services_any=["Netflix"]))
    assert page.total == 0
    assert page.warnings == ["unknown genres: 'Sci-Fi'"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"runtime_min": 120, "runtime_max": 90}, "runtime_min \\(120\\) is above runtime_max"),
        (
            {"released_after": "2020-01-01", "released_before": "2019-01-01"},
            "released_after .* is later than released_before",
        ),
        ({"genres_all": ["Drama"], "genres_none": ["drama"]}, "both genres_all and genres_none"),
        ({"genres_any": ["Drama"], "genres_none": ["Drama"]}, "nothing can match"),
        ({"director": "  "}, "director is empty"),
    ],
)
def test_contradictory_spec_is_rejected(spec, message):
    with pytest.raises(ValidationError, match=message):
        FilterSpec.model_validate(spec)


@pytest.mark.parametrize(
    "spec",
    [{"limit": 0}, {"limit": 101}, {"sort": "budget"}, {"content_ratings": ["X"]}, {"colour": 1}],
)
def test_out_of_range_or_unknown_fields_are_rejected(spec):
    with pytest.raises(ValidationError):
        FilterSpec.model_validate(spec)


def test_every_spec_field_is_described():
    fields = FilterSpec.model_json_schema()["properties"]
    assert [name for name, f in fields.items() if not f.get("description")] == []


# --- properties: the vectorised filter agrees with a plain Python reading of the spec ---

GENRES = ["Drama", "Comedy", "Horror", "Family"]
SERVICES = ["Netflix", "Hulu", "Amazon Prime Video", "HBO Max"]
PEOPLE = ["Ann Lee", "Bo Kim", "Cy Ode"]
SORTS = ["rating", "-rating", "vote_count", "-vote_count", "release_date", "runtime", "-title"]

items_st = st.lists(
    st.builds(
        dict,
        genres=st.lists(st.sampled_from(GENRES), max_size=3, unique=True),
        runtime=st.integers(60, 200),
        rating=st.sampled_from([5.0, 6.5, 7.0, 8.2]),
        vote_count=st.integers(0, 50),
        release_date=st.dates(date(1990, 1, 1), date(2000, 12, 31)),
        content_rating=st.sampled_from(["G", "PG", "R"]),
        streaming_services=st.lists(st.sampled_from(SERVICES), max_size=2, unique=True),
        director=st.none() | st.sampled_from(PEOPLE),
        cast=st.lists(st.sampled_from(PEOPLE), max_size=2, unique=True),
        title=st.sampled_from(["Alpha", "beta", "Gamma"]),
    ),
    min_size=1,
    max_size=25,
).map(lambda recs: [Item(id=f"i{n:02d}", **r) for n, r in enumerate(recs)])

spec_st = st.fixed_dictionaries(
    {},
    optional={
        "genres_any": st.lists(st.sampled_from(GENRES), min_size=1, max_size=2),
        "genres_none": st.lists(st.sampled_from(GENRES[2:]), max_size=1),
        "runtime_max": st.integers(60, 200),
        "content_ratings": st.lists(st.sampled_from(["G", "PG", "R"]), min_size=1),
        "min_rating": st.sampled_from([5.0, 6.5, 7.5]),
        "min_votes": st.integers(0, 50),
        "services_any": st.lists(st.sampled_from(["netflix", "prime video", "max"]), min_size=1),
        "released_after": st.dates(date(1990, 1, 1), date(2000, 12, 31)),
        "director": st.sampled_from(PEOPLE),
        "cast_member": st.sampled_from(PEOPLE),
        "sort": st.sampled_from(SORTS),
    },
).filter(
    lambda s: not s.get("genres_any") or not set(s["genres_any"]) <= set(s.get("genres_none", []))
)


def naive_match(item: Item, spec: FilterSpec) -> bool:
    g = set(item.genres)
    have = {service_key(s) for s in item.streaming_services}
    return (
        (not spec.genres_any or bool(g & set(spec.genres_any)))
        and not g & set(spec.genres_none)
        and (spec.runtime_max is None or item.runtime <= spec.runtime_max)
        and (not spec.content_ratings or item.content_rating in spec.content_ratings)
        and (spec.min_rating is None or item.rating >= spec.min_rating)
        and (spec.min_votes is None or item.vote_count >= spec.min_votes)
        and (not spec.services_any or any(service_key(s) in have for s in spec.services_any))
        and (spec.released_after is None or item.release_date >= spec.released_after)
        and (spec.director is None or item.director == spec.director)
        and (spec.cast_member is None or spec.cast_member in item.cast)
    )


def naive_order(items: list[Item], sort: str) -> list[str]:
    key = {"popularity": "vote_count"}.get(sort.lstrip("-"), sort.lstrip("-"))

    def value(it: Item) -> Any:
        return it.title.casefold() if key == "title" else getattr(it, key)

    by_id = sorted(items, key=lambda it: it.id)
    return [it.id for it in sorted(by_id, key=value, reverse=sort.startswith("-"))]


@settings(max_examples=150, deadline=None)
@given(items=items_st, spec=spec_st)
def test_filter_agrees_with_a_naive_predicate(items, spec):
    parsed = FilterSpec(limit=100, **spec)
    expected = naive_order([it for it in items if naive_match(it, parsed)], parsed.sort)
    page = Catalog.from_items(items).filter(parsed)
    assert [s.id for s in page.items] == expected
    assert page.total == len(expected)


@settings(max_examples=100, deadline=None)
@given(items=items_st, spec=spec_st, limit=st.integers(1, 7))
def test_paging_returns_every_match_exactly_once_in_order(items, spec, limit):
    cat = Catalog.from_items(items)
    everything = [s.id for s in cat.filter(FilterSpec(limit=100, **spec)).items]
    seen: list[str] = []
    cursor = None
    while True:
        page = cat.filter(FilterSpec(limit=limit, cursor=cursor, **spec))
        seen += [s.id for s in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == everything
