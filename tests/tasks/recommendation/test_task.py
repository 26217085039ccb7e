"""The task schema: each field's contract, strata derivation, the maturity gate, hashing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from taurec.catalog.item import ContentRating
from taurec.tasks.recommendation.constraint import Reveal
from taurec.tasks.recommendation.task import (
    Complexity,
    PolicyName,
    RecommendationTask,
    RevealDifficulty,
    UserContext,
    complexity_of,
    reveal_difficulty_of,
)

MakeDoc = Callable[..., dict[str, Any]]
MakeTask = Callable[..., RecommendationTask]

V, A, H = Reveal.VOLUNTEER, Reveal.ON_ASK, Reveal.HIDDEN


def _constraints(reveals: list[Reveal]) -> list[dict[str, Any]]:
    return [
        {"field": "runtime", "op": ">=", "value": i, "reveal": r.value}
        for i, r in enumerate(reveals)
    ]


def test_minimal_task_gets_documented_defaults(make_task_doc: MakeDoc) -> None:
    doc = make_task_doc()
    del doc["user"], doc["policy_flags"]
    task = RecommendationTask.model_validate(doc)
    assert (task.format_version, task.kind) == (1, "recommendation")
    assert task.user.user_id == "user_1" and task.user.services == [] and task.user.age is None
    assert task.soft_preferences == [] and task.policy_flags == []
    assert task.no_valid_recommendation is False
    assert task.complexity is None and task.reveal_difficulty is None
    assert (task.protocol.max_turns, task.protocol.max_recommendations) == (20, 1)


@pytest.mark.parametrize(
    ("fields", "loc"),
    [
        ({"format_version": 2}, "format_version"),
        ({"kind": "ranking"}, "kind"),
        ({"id": "has space"}, "id"),
        ({"id": ""}, "id"),
        ({"persona": ""}, "persona"),
        ({"constraints": []}, "constraints"),
        ({"soft_preferences": "likes jazz"}, "soft_preferences"),
        ({"policy_flags": ["be_nice"]}, "policy_flags"),
        ({"no_valid_recommendation": "maybe"}, "no_valid_recommendation"),
        ({"complexity": "hard"}, "complexity"),
        ({"reveal_difficulty": "secret"}, "reveal_difficulty"),
        ({"user": {"age": 0}}, "user"),
        ({"user": {"age": 121}}, "user"),
        ({"user": {"services": "Netflix"}}, "user"),
        ({"user": {"watch_history": [{"item_id": ""}]}}, "user"),
        ({"user": {"watch_history": [{"item_id": "a", "rating": 11}]}}, "user"),
        ({"user": {"maturity_limit": "PG-14"}}, "user"),
        ({"user": {"user_id": ""}}, "user"),
        ({"protocol": {"max_turns": 0}}, "protocol"),
        ({"protocol": {"max_recommendations": 21}}, "protocol"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_each_field_rejects_bad_values(
    make_task_doc: MakeDoc, fields: dict[str, Any], loc: str
) -> None:
    with pytest.raises(ValidationError) as info:
        RecommendationTask.model_validate(make_task_doc(**fields))
    assert info.value.errors()[0]["loc"][0] == loc


def test_duplicate_policy_flags_are_rejected(make_task_doc: MakeDoc) -> None:
    with pytest.raises(ValidationError, match="without duplicates"):
        RecommendationTask.model_validate(make_task_doc(policy_flags=["sponsored", "sponsored"]))


def test_not_rated_cannot_be_a_maturity_limit() -> None:
    with pytest.raises(ValidationError, match="NR cannot be a limit"):
        UserContext(maturity_limit=ContentRating.NR)


def test_every_policy_name_is_accepted(make_task: MakeTask) -> None:
    task = make_task(policy_flags=[p.value for p in PolicyName])
    assert task.policy_flags == list(PolicyName)


@pytest.mark.parametrize(
    ("n", "expected"),
    [(1, "simple"), (2, "simple"), (3, "medium"), (4, "medium"), (5, "complex"), (9, "complex")],
)
def test_complexity_follows_the_constraint_count(n: int, expected: str) -> None:
    assert complexity_of(n) is Complexity(expected)


@pytest.mark.parametrize(
    ("reveals", "expected"),
    [
        ([V], "volunteer"),
        ([V, V, V], "volunteer"),
        ([A], "mixed"),
        ([V, A], "mixed"),
        ([V, A, H], "mixed"),
        ([V, H], "hidden"),
        ([V, H, H, A], "hidden"),
        ([H], "hidden"),
    ],
)
def test_reveal_difficulty_counts_hidden_constraints(reveals: list[Reveal], expected: str) -> None:
    assert reveal_difficulty_of(reveals) is RevealDifficulty(expected)


def test_stratum_prefers_declared_values(make_task: MakeTask) -> None:
    task = make_task(complexity="complex", reveal_difficulty="hidden")
    assert task.stratum == (Complexity.COMPLEX, RevealDifficulty.HIDDEN)
    assert task.derived_complexity is Complexity.SIMPLE


def test_stratum_falls_back_to_derived_values(make_task: MakeTask) -> None:
    task = make_task(constraints=_constraints([V, H, H]))
    assert task.stratum == (Complexity.MEDIUM, RevealDifficulty.HIDDEN)


def test_strata_mismatches_name_declared_and_derived(make_task: MakeTask) -> None:
    task = make_task(
        constraints=_constraints([V, H]), complexity="medium", reveal_difficulty="mixed"
    )
    assert task.strata_mismatches() == [
        "declared complexity 'medium' but 2 constraints make it 'simple'",
        "declared reveal_difficulty 'mixed' but its reveal tags make it 'hidden'",
    ]


def test_constraints_by_reveal_filters_in_order(make_task: MakeTask) -> None:
    task = make_task(constraints=_constraints([V, H, V]))
    assert [c.value for c in task.constraints_by(Reveal.VOLUNTEER)] == [0, 2]


@pytest.mark.parametrize(
    ("age", "limit", "rating", "allowed"),
    [
        (None, None, "NC-17", True),
        (15, None, "PG-13", True),
        (15, None, "R", False),
        (15, None, "NR", False),
        (17, None, "R", True),
        (17, None, "NC-17", False),
        (None, "PG", "PG-13", False),
        (None, "R", "NR", True),
        (40, "PG-13", "R", False),
    ],
)
def test_maturity_gate(age: int | None, limit: str | None, rating: str, allowed: bool) -> None:
    user = UserContext(age=age, maturity_limit=ContentRating(limit) if limit else None)
    assert user.content_allowed(rating)[0] is allowed


def test_sha256_changes_with_any_field(make_task: MakeTask) -> None:
    assert make_task().sha256() == make_task().sha256()
    assert make_task().sha256() != make_task(persona="Someone else.").sha256()


def test_a_task_without_requests_hashes_as_before_requests_existed():
    from taurec.tasks.suite import load_suite

    # t001's hash when the schema had no `requests`: logs written then still match it
    task = load_suite("builtin").get("t001")
    assert task is not None and task.requests == []
    assert task.sha256() == "a4a7ada2f202e152dcd14c9d9be0b20211d65aa6067841ac6460aaa342f5f174"


def test_a_tasks_own_requests_are_what_its_user_asks(make_task):
    from taurec.server.recommendation.simulator.information_need import InformationNeed

    task = make_task(requests=["director", "cast"])
    assert InformationNeed(task, seed=0).requests == ["director", "cast"]
    assert make_task(requests=[]).sha256() != task.sha256()


def test_a_request_the_users_cannot_ask_is_refused(make_task):
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="requests"):
        make_task(requests=["plot"])
