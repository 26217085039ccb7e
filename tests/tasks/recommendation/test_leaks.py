"""Leaks between the tasks of a suite: a need one task keeps back and another of the same
user states sooner, the same problem posed twice, a title one task names among another's
few answers; the suite validator reports them and the generators refuse them.

The small catalog (conftest): a Drama 100 min, b Drama 120 min, c Comedy 90 min,
d Comedy+Drama 100 min, e Horror 100 min.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import taurec.tasks.recommendation.crs_suite as crs_suite
import taurec.tasks.recommendation.generator as generator
from taurec.catalog.builders.synthetic import generate_items
from taurec.catalog.io import CatalogMeta
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.leaks import pair_leaks, refuse_leaks, suite_leaks
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.recommendation.validate import ValidationReport, validate_suite
from taurec.tasks.suite import load_suite

MakeDoc = Callable[..., dict[str, Any]]

DRAMA = {"field": "genres", "op": "contains", "value": "Drama"}
SHORT = {"field": "runtime", "op": "<=", "value": 110}
#: Matches the same items as SHORT on the small catalog (nothing runs under 0 minutes).
SHORT_AS_RANGE = {"field": "runtime", "op": "between", "value": [0, 110]}


def hidden(c: dict[str, Any]) -> dict[str, Any]:
    return {**c, "reveal": "hidden"}


def user(user_id: str) -> dict[str, Any]:
    return {"user_id": user_id, "services": ["Netflix", "Hulu"]}


def validate(write_suite: Callable[..., Path], docs: list[dict[str, Any]]) -> ValidationReport:
    return validate_suite(load_suite(str(write_suite({d["id"]: d for d in docs}))))


def problems(report: ValidationReport, task_id: str, *, warnings: bool = False) -> list[str]:
    (t,) = [t for t in report.tasks if t.task_id == task_id]
    return [f"{p.code}: {p.message}" for p in (t.warnings if warnings else t.errors)]


def test_a_need_kept_back_that_the_same_users_other_task_volunteers_is_an_error(
    write_suite: Callable[..., Path], make_task_doc: MakeDoc
) -> None:
    says = make_task_doc(id="says", persona="You are Ann.", constraints=[SHORT_AS_RANGE])
    hides = make_task_doc(id="hides", persona="You are Bo.", constraints=[DRAMA, hidden(SHORT)])
    report = validate(write_suite, [{**says, "user": user("u1")}, {**hides, "user": user("u1")}])
    (found,) = problems(report, "hides")
    assert found.startswith("shared_user_reveal: constraints[1] (runtime <= 110) is hidden")
    assert "'says' (up front, same user id)" in found
    assert problems(report, "says") == [] and not report.ok


def test_the_same_persona_under_two_user_ids_is_one_user(
    write_suite: Callable[..., Path], make_task_doc: MakeDoc
) -> None:
    says = make_task_doc(id="says", constraints=[SHORT], user=user("u1"))
    asks = make_task_doc(
        id="asks", constraints=[DRAMA, {**SHORT, "reveal": "on_ask"}], user=user("u2")
    )
    report = validate(write_suite, [says, asks])
    (found,) = problems(report, "asks")
    assert "is on_ask" in found and "'says' (up front, same persona)" in found


def test_different_users_may_keep_back_what_another_volunteers(
    write_suite: Callable[..., Path], make_task_doc: MakeDoc
) -> None:
    says = make_task_doc(id="says", persona="You are Ann.", constraints=[SHORT], user=user("u1"))
    hides = make_task_doc(
        id="hides", persona="You are Bo.", constraints=[DRAMA, hidden(SHORT)], user=user("u2")
    )
    report = validate(write_suite, [says, hides])
    assert report.ok and report.n_warnings == 0


def test_the_same_problem_twice_leaks_into_each_task_that_keeps_a_need_back(
    write_suite: Callable[..., Path], make_task_doc: MakeDoc
) -> None:
    first = make_task_doc(
        id="first", persona="You are Ann.", constraints=[DRAMA, hidden(SHORT)], user=user("u1")
    )
    second = make_task_doc(
        id="second", persona="You are Bo.", constraints=[DRAMA, SHORT_AS_RANGE], user=user("u2")
    )
    report = validate(write_suite, [first, second])
    (found,) = problems(report, "first")
    assert found.startswith("same_problem: poses the same problem as task 'second'")
    assert problems(report, "second") == []  # it states everything: nothing to give away


def test_a_title_one_user_names_among_anothers_few_answers_is_a_warning(
    write_suite: Callable[..., Path], make_task_doc: MakeDoc
) -> None:
    names = make_task_doc(
        id="names",
        persona="You are Ann.",
        constraints=[{"field": "title", "op": "!=", "value": "A"}],
        user=user("u1"),
    )
    narrow = make_task_doc(id="narrow", persona="You are Bo.", constraints=[DRAMA, SHORT])
    report = validate(write_suite, [names, {**narrow, "user": user("u2")}])
    (found,) = problems(report, "narrow", warnings=True)
    assert found.startswith("title_named_elsewhere: compliant answer 'a' (of 2)")
    assert report.ok  # advisory


def test_the_builtin_suite_has_no_leak() -> None:
    suite = load_suite("builtin")
    assert suite_leaks(suite.tasks, suite.catalog) == {}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.from_items(generate_items(150, seed=11), CatalogMeta(name="syn150"))


class _Blind:
    """A leak index that sees nothing: the generators as they were before they avoided leaks."""

    def __init__(self, catalog: Catalog) -> None:
        pass

    def leaks(self, task: RecommendationTask) -> list[Any]:
        return []

    def add(self, task: RecommendationTask) -> None:
        pass


def test_generated_suites_have_no_leak_and_a_user_id_per_task(catalog: Catalog) -> None:
    for tasks in (
        generator.generate_tasks(catalog, 12, seed=4),
        crs_suite.generate_crs_tasks(catalog, 6, seed=0),
    ):
        assert pair_leaks(tasks, catalog) == []
        assert len({t.user.user_id for t in tasks}) == len(tasks)


@pytest.mark.parametrize(
    ("module", "make"),
    [
        (generator, lambda c: generator.generate_tasks(c, 12, seed=4)),
        (crs_suite, lambda c: crs_suite.generate_crs_tasks(c, 6, seed=0)),
    ],
    ids=["tools", "crs"],
)
def test_a_generator_that_drew_a_leak_refuses_the_suite(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch, module: Any, make: Any
) -> None:
    monkeypatch.setattr(module, "LeakIndex", _Blind)
    with pytest.raises(ValueError, match=r"refusing a suite that leaks$") as caught:
        make(catalog)
    assert "\n" not in str(caught.value)


def test_refuse_leaks_names_the_task_and_the_kind_of_leak(
    small_catalog: Catalog, make_task: Callable[..., RecommendationTask]
) -> None:
    tasks = [
        make_task(id="one", constraints=[DRAMA, hidden(SHORT)]),
        make_task(id="two", constraints=[DRAMA, hidden(SHORT)], persona="You are Bo."),
    ]
    with pytest.raises(ValueError, match=r"^task 'two' \(same_problem\): poses the same"):
        refuse_leaks(tasks, small_catalog)
