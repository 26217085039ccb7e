"""The task generator: seeded, stratified, and every task passes strict validation."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taurec.catalog.builders.synthetic import generate_items
from taurec.catalog.io import CatalogMeta
from taurec.catalog.item import Item
from taurec.catalog.store import Catalog, builtin_path
from taurec.tasks.recommendation.generator import CELLS, generate_tasks
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask
from taurec.tasks.recommendation.validate import check_task


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.from_items(generate_items(150, seed=11), CatalogMeta(name="syn150"))


@pytest.fixture(scope="module")
def tasks(catalog: Catalog) -> list[RecommendationTask]:
    return generate_tasks(catalog, 40, seed=5)


def test_same_seed_gives_the_same_tasks(catalog: Catalog, tasks: list[RecommendationTask]) -> None:
    again = generate_tasks(catalog, 40, seed=5)
    assert [t.sha256() for t in again] == [t.sha256() for t in tasks]


def test_item_order_does_not_change_the_tasks(catalog: Catalog) -> None:
    shuffled = Catalog.from_items(list(reversed(catalog.items)))
    assert [t.sha256() for t in generate_tasks(shuffled, 9, seed=2)] == [
        t.sha256() for t in generate_tasks(catalog, 9, seed=2)
    ]


def test_different_seeds_give_different_tasks(
    catalog: Catalog, tasks: list[RecommendationTask]
) -> None:
    other = generate_tasks(catalog, 40, seed=6)
    assert [t.sha256() for t in other] != [t.sha256() for t in tasks]


def test_every_task_passes_strict_validation_without_warnings(
    catalog: Catalog, tasks: list[RecommendationTask]
) -> None:
    for task in tasks:
        report = check_task(task, catalog, strict=True)
        assert (report.errors, report.warnings) == ([], []), task.id


def test_tasks_go_round_robin_over_the_grid(tasks: list[RecommendationTask]) -> None:
    assert [t.stratum for t in tasks[:9]] == list(CELLS)
    assert all(t.stratum == (t.derived_complexity, t.derived_reveal_difficulty) for t in tasks)


def test_every_tenth_task_has_no_valid_answer(tasks: list[RecommendationTask]) -> None:
    no_valid = [i for i, t in enumerate(tasks) if t.no_valid_recommendation]
    assert no_valid == [9, 19, 29, 39]
    assert all(PolicyName.TRANSPARENCY in tasks[i].policy_flags for i in no_valid)


def test_ids_use_the_prefix_and_a_fixed_width(catalog: Catalog) -> None:
    assert [t.id for t in generate_tasks(catalog, 3, seed=0, id_prefix="demo")] == [
        "demo_000",
        "demo_001",
        "demo_002",
    ]


def test_constraints_span_many_fields(tasks: list[RecommendationTask]) -> None:
    fields = {c.field for t in tasks for c in t.constraints}
    assert {"genres", "runtime", "rating", "content_rating", "release_date"} <= fields
    assert len(fields) >= 7


def test_personas_and_flags_vary(tasks: list[RecommendationTask]) -> None:
    assert len({t.persona for t in tasks}) >= 8
    flags = Counter(f for t in tasks for f in t.policy_flags)
    assert {PolicyName.AVAILABILITY, PolicyName.AGE_RESTRICTED, PolicyName.WATCH_HISTORY} <= set(
        flags
    )


def test_a_catalog_with_no_services_is_refused(catalog: Catalog) -> None:
    bare = [
        Item.model_validate({**it.model_dump(), "streaming_services": []}) for it in catalog.items
    ]
    with pytest.raises(ValueError, match="no item on a streaming service"):
        generate_tasks(Catalog.from_items(bare), 1, seed=0)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_any_seed_gives_valid_tasks_on_a_small_catalog(seed: int) -> None:
    small = Catalog.from_items(generate_items(60, seed=seed % 1000))
    for task in generate_tasks(small, 10, seed=seed):
        assert check_task(task, small).ok, task.id


def test_generates_valid_tasks_over_the_builtin_catalog() -> None:
    if not builtin_path().is_file():
        pytest.skip("the built-in catalog (catalog/data/builtin.json) has not been built yet")
    builtin = Catalog.load("builtin")
    for task in generate_tasks(builtin, 18, seed=1):
        assert check_task(task, builtin).ok, task.id
