"""The read-only tools as pure functions, and the replay the evaluator runs."""

from __future__ import annotations

from typing import Any

import pytest
from support.episodes import make_item

from taurec.catalog.filter import FilterSpec
from taurec.catalog.store import Catalog
from taurec.tasks.errors import ArgumentError
from taurec.tasks.recommendation import catalog_tools as ct
from taurec.tasks.recommendation.task import RecommendationTask

CATALOG = Catalog.from_items(
    [
        make_item("m1", "Paper Lanterns", overview="A comedy about lanterns."),
        make_item("m2", "The Quiet Orchard", streaming_services=["Hulu"], genres=["Drama"]),
        make_item("m3", "Neon Alibi", content_rating="R", genres=["Comedy", "Crime"]),
        make_item("m4", "Saltwater Kings", sponsored=True, streaming_services=["Prime Video"]),
    ]
)
TASK = RecommendationTask.model_validate(
    {
        "id": "t1",
        "persona": "You are Ana.",
        "constraints": [{"field": "genres", "op": "contains", "value": "Comedy"}],
        "user": {
            "user_id": "u1",
            "age": 15,
            "services": ["Amazon Prime Video"],
            "watch_history": [{"item_id": "m1", "rating": 8}, {"item_id": "gone", "rating": 3}],
        },
    }
)


def test_search_returns_scored_listings_with_the_sponsored_flag() -> None:
    result = ct.search_catalog(CATALOG, "saltwater kings", 5)
    assert result.hits[0].id == "m4"
    assert result.hits[0].sponsored is True
    assert result.hits[0].score > 0


def test_search_is_deterministic() -> None:
    first = ct.search_catalog(CATALOG, "comedy", 10).model_dump(mode="json")
    assert ct.search_catalog(CATALOG, "comedy", 10).model_dump(mode="json") == first


@pytest.mark.parametrize(
    ("query", "limit", "argument"), [("", 5, "query"), ("comedy", 0, "limit"), ("x", 101, "limit")]
)
def test_search_names_the_bad_argument(query: str, limit: int, argument: str) -> None:
    with pytest.raises(ArgumentError) as err:
        ct.search_catalog(CATALOG, query, limit)
    assert err.value.argument == argument


def test_filter_with_a_bad_cursor_names_the_cursor() -> None:
    with pytest.raises(ArgumentError, match="cursor"):
        ct.filter_catalog(CATALOG, FilterSpec(cursor="not-a-cursor"))


def test_get_item_returns_every_field() -> None:
    assert ct.get_item(CATALOG, "m3") == CATALOG.get("m3")


@pytest.mark.parametrize("item_id", ["nope", "", "  "])
def test_unknown_item_ids_are_argument_errors(item_id: str) -> None:
    with pytest.raises(ArgumentError) as err:
        ct.get_item(CATALOG, item_id)
    assert err.value.argument == "item_id"


def test_availability_normalises_service_names() -> None:
    result = ct.check_availability(CATALOG, "m4", ["Amazon Prime Video"])
    assert result.available and result.matched == ["Amazon Prime Video"]
    assert not ct.check_availability(CATALOG, "m1", ["Amazon Prime Video"]).available


def test_user_history_has_titles_and_ratings_and_tolerates_unknown_ids() -> None:
    history = ct.get_user_history(CATALOG, TASK)
    assert history.user_id == "u1"
    assert [(w.item_id, w.title, w.rating) for w in history.watched] == [
        ("m1", "Paper Lanterns", 8),
        ("gone", None, 3),
    ]


def test_content_preference_applies_the_profile() -> None:
    by_item = ct.check_content_preference(CATALOG, TASK, item_id="m3")
    assert (by_item.content_rating, by_item.allowed, by_item.age_restricted) == ("R", False, True)
    by_rating = ct.check_content_preference(CATALOG, TASK, content_rating="PG")
    assert by_rating.allowed and by_rating.item_id is None


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"item_id": "m1", "content_rating": "PG"}, {"content_rating": "XXX"}, {"item_id": "no"}],
)
def test_content_preference_wants_exactly_one_valid_subject(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ArgumentError):
        ct.check_content_preference(CATALOG, TASK, **kwargs)


REPLAYS = [
    ("search_catalog", {"episode_id": "e", "query": "comedy", "limit": 3}),
    ("filter_catalog", {"episode_id": "e", "genres_any": ["Comedy"], "limit": 2}),
    ("filter_catalog", {"released_after": "2010-01-01", "content_ratings": ["R"]}),
    ("get_item", {"episode_id": "e", "item_id": "m2"}),
    ("check_availability", {"episode_id": "e", "item_id": "m4"}),
    ("get_user_history", {"episode_id": "e"}),
    ("check_content_preference", {"episode_id": "e", "content_rating": "R"}),
    ("check_content_preference", {"item_id": "m3"}),
]


@pytest.mark.parametrize(("name", "arguments"), REPLAYS)
def test_replay_reproduces_the_tool_result(name: str, arguments: dict[str, Any]) -> None:
    spec_args = {k: v for k, v in arguments.items() if k != "episode_id"}
    direct = {
        "search_catalog": lambda: ct.search_catalog(CATALOG, **spec_args),
        "filter_catalog": lambda: ct.filter_catalog(CATALOG, FilterSpec.model_validate(spec_args)),
        "get_item": lambda: ct.get_item(CATALOG, **spec_args),
        "check_availability": lambda: ct.check_availability(
            CATALOG, spec_args["item_id"], TASK.user.services
        ),
        "get_user_history": lambda: ct.get_user_history(CATALOG, TASK),
        "check_content_preference": lambda: ct.check_content_preference(CATALOG, TASK, **spec_args),
    }[name]()
    assert ct.replay_call(CATALOG, TASK, name, arguments) == direct.model_dump(mode="json")


@pytest.mark.parametrize("name", ["send_message", "recommend", "start_episode", "nonsense"])
def test_replay_skips_tools_that_are_not_read_only(name: str) -> None:
    assert ct.replay_call(CATALOG, TASK, name, {"item_id": "m1"}) is None


@pytest.mark.parametrize(
    ("name", "arguments", "argument"),
    [
        ("get_item", {"item_id": 7}, "item_id"),
        ("get_item", {}, "item_id"),
        ("search_catalog", {"query": "x", "colour": "red"}, "colour"),
        ("filter_catalog", {"limit": 0}, "limit"),
    ],
)
def test_replay_of_bad_arguments_raises_naming_them(
    name: str, arguments: dict[str, Any], argument: str
) -> None:
    with pytest.raises(ArgumentError) as err:
        ct.replay_call(CATALOG, TASK, name, arguments)
    assert err.value.argument == argument
