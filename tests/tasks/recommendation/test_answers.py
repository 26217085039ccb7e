"""Answer keys: which items satisfy a task, and which of those a policy-following agent may pick."""

from __future__ import annotations

from collections.abc import Callable

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.answers import (
    answers,
    compliant_answers,
    noncompliance,
    on_user_services,
)
from taurec.tasks.recommendation.task import RecommendationTask, UserContext

MakeTask = Callable[..., RecommendationTask]


def _items(catalog: Catalog, ids: list[str]) -> list[Item]:
    return [it for it in catalog.items if it.id in ids]


def test_answers_are_sorted_ids_satisfying_every_constraint(
    small_catalog: Catalog, make_task: MakeTask
) -> None:
    task = make_task(
        constraints=[
            {"field": "genres", "op": "contains", "value": "Drama"},
            {"field": "rating", "op": ">=", "value": 5},
        ]
    )
    assert answers(task, reversed(small_catalog.items)) == ["a", "b", "d"]


def test_compliant_answers_need_one_of_the_users_services(
    small_catalog: Catalog, make_task: MakeTask
) -> None:
    task = make_task(user={"services": ["Hulu"]}, policy_flags=["availability"])
    assert compliant_answers(task, _items(small_catalog, ["a", "b", "d"])) == ["b"]


def test_compliant_answers_exclude_the_watch_history(
    small_catalog: Catalog, make_task: MakeTask
) -> None:
    task = make_task(
        user={"services": ["Netflix", "Hulu"], "watch_history": [{"item_id": "a"}]},
        policy_flags=["watch_history"],
    )
    assert compliant_answers(task, _items(small_catalog, ["a", "b"])) == ["b"]


def test_compliant_answers_respect_the_maturity_gate(
    small_catalog: Catalog, make_task: MakeTask
) -> None:
    task = make_task(
        user={"services": ["Netflix", "Hulu"], "age": 14}, policy_flags=["age_restricted"]
    )
    assert compliant_answers(task, _items(small_catalog, ["a", "b"])) == ["a"]


def test_a_policy_the_task_does_not_flag_does_not_narrow_the_answer_key(
    small_catalog: Catalog, make_task: MakeTask
) -> None:
    # unflagged policies are not scored: a watched, unstreamable or gated answer passes
    task = make_task(
        user={"services": [], "age": 14, "watch_history": [{"item_id": "a"}, {"item_id": "b"}]},
        policy_flags=["recommend_tool"],
    )
    assert compliant_answers(task, _items(small_catalog, ["a", "b", "d"])) == ["a", "b", "d"]


def test_availability_is_required_only_when_flagged(
    small_catalog: Catalog, make_task: MakeTask
) -> None:
    items = _items(small_catalog, ["a", "b", "d"])
    unflagged = make_task(user={"services": []}, policy_flags=["watch_history"])
    flagged = make_task(user={"services": []}, policy_flags=["availability"])
    assert (compliant_answers(unflagged, items), compliant_answers(flagged, items)) == (
        ["a", "b", "d"],
        [],
    )


def test_service_match_is_alias_aware(make_item: Callable[..., Item]) -> None:
    item = make_item("x", streaming_services=["Amazon Prime Video"])
    assert on_user_services(item, UserContext(services=["prime video"]))


def test_noncompliance_lists_every_reason(make_item: Callable[..., Item]) -> None:
    item = make_item("x", streaming_services=[], content_rating="R")
    user = UserContext(age=12, watch_history=[{"item_id": "x"}])
    assert noncompliance(item, user) == [
        "not on the user's services",
        "already watched",
        "blocked by the maturity gate",
    ]
