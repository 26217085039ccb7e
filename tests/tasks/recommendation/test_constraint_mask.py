"""Constraint masks agree with `Constraint.holds`, and the validator and the generator built
on them say exactly what the per-item code said.

The digests below were computed by the per-item implementation (every constraint evaluated
with `holds` over `catalog.items`) on the same seeded cases; the mask-based code must
reproduce them to the byte, over a JSON catalog and over a catalog folder alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from support.mask_cases import FIELDS, digest, random_constraints, random_tasks

from taurec.catalog.builders.synthetic import generate_items, synthetic_meta
from taurec.catalog.folder import write_catalog_folder
from taurec.catalog.io import write_catalog_file
from taurec.catalog.item import Item
from taurec.catalog.store import Catalog, builtin_path
from taurec.tasks.recommendation.answer_rows import answer_rows, compliant_mask, ids_of
from taurec.tasks.recommendation.answers import answers, compliant_answers
from taurec.tasks.recommendation.constraint import CONSTRAINABLE_FIELDS, Constraint, Op
from taurec.tasks.recommendation.constraint_mask import constraint_mask, predicate_mask
from taurec.tasks.recommendation.generator import generate_tasks
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.recommendation.validate import TaskReport, check_task, validate_suite
from taurec.tasks.recommendation.vocabulary import Vocabulary
from taurec.tasks.suite import load_suite

#: Digests of the per-item implementation's output on the cases below.
REFERENCE = {
    "builtin": {
        "random_tasks": "618463a1f718e9faa703384f7cfe4c1098fa92bf81f046d507f3fc6f921855f7",
        "reports": "5fb6b9fcbc842a602f112a9c1be02b8e0c9cc42da67156885681c515742e6e61",
        "generate": "c42ad5c778a55c1e615776dfaa7f95998c8f744e9929ee6e6ea5dccea4a6a8a9",
    },
    "gen3000": {
        "random_tasks": "fd145bf6f300361a04da044cca1bc61829788a37d9d8b519173f93f6d0cd846b",
        "reports": "8679a409f09c0f39f86dca06476b2cc7c4fe3c91dcf960aa1c65749d5a002b39",
        "generate": "b206ababb99c46a3cf618debac3095a87726992af02daa461327ec12b190aac3",
    },
}
BUILTIN_SUITE_REPORT = "e4fe09320585dff4399babdbe558aa740f0f90485eeb3d2397c6e0c68cc2129c"
pytestmark = pytest.mark.slow  # about 20 s: every case is checked against the per-item path
CATALOGS = [(name, form) for name in REFERENCE for form in ("json", "folder")]


def _items(name: str) -> list[Item]:
    if name == "builtin":
        return list(Catalog.load(builtin_path()).items)
    return generate_items(3000, seed=7)


@pytest.fixture(scope="module", params=CATALOGS, ids=lambda p: f"{p[0]}-{p[1]}")
def loaded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Catalog]:
    name, form = request.param
    items = _items(name)
    meta = synthetic_meta(len(items), 7, name=name)
    out = tmp_path_factory.mktemp(f"{name}-{form}")
    if form == "json":
        path = write_catalog_file(out / "catalog.json", meta, items)
    else:
        path = write_catalog_folder(out / "catalog.taurec-catalog", meta, items)
    return name, Catalog.load(Path(path))


def test_the_mask_of_every_generated_constraint_equals_holds_item_by_item(
    loaded: tuple[str, Catalog],
) -> None:
    _, catalog = loaded
    items = list(catalog.items)
    constraints = random_constraints(catalog, 300, seed=2)
    assert {c.field for c in constraints} >= set(FIELDS) == set(CONSTRAINABLE_FIELDS)
    assert {c.op for c in constraints} == set(Op)
    for c in constraints:
        expected = np.array([c.holds(it) for it in items], dtype=np.bool_)
        assert np.array_equal(constraint_mask(c, catalog), expected), c


def test_the_mask_of_every_builtin_task_constraint_equals_holds(
    loaded: tuple[str, Catalog],
) -> None:
    _, catalog = loaded
    items = list(catalog.items)
    constraints = [c for t in load_suite("builtin").tasks for c in t.constraints]
    assert constraints
    for c in constraints:
        assert np.array_equal(constraint_mask(c, catalog), predicate_mask(c, items)), c


def test_spelling_variants_match_as_holds_says(loaded: tuple[str, Catalog]) -> None:
    _, catalog = loaded
    genre = catalog.genres()[0]
    service = catalog.services()[0]
    for c in (
        Constraint(field="genres", op=Op.CONTAINS, value=f"  {genre.upper()} "),
        Constraint(field="streaming_services", op=Op.CONTAINS, value=service.lower() + "  "),
        Constraint(field="content_rating", op=Op.IN, value=["PG-13", "R"]),
        Constraint(field="director", op=Op.NE, value="nobody at all"),
        Constraint(field="vote_count", op=Op.BETWEEN, value=[10, 10.5]),
        Constraint(field="release_date", op=Op.LE, value="2001-02-03"),
    ):
        mask = constraint_mask(c, catalog)
        assert np.array_equal(mask, predicate_mask(c, catalog.items)), c


@pytest.fixture(scope="module")
def reports(loaded: tuple[str, Catalog]) -> list[TaskReport]:
    """check_task, strict then not, on each random task (one vocabulary, as a suite shares)."""
    _, catalog = loaded
    vocab = Vocabulary(catalog)
    tasks = random_tasks(catalog, 120, seed=1)
    return [check_task(t, catalog, strict=s, vocab=vocab) for t in tasks for s in (True, False)]


def test_the_validator_reports_on_random_tasks_equal_the_per_item_reports(
    loaded: tuple[str, Catalog], reports: list[TaskReport]
) -> None:
    name, catalog = loaded
    assert digest(random_tasks(catalog, 120, seed=1)) == REFERENCE[name]["random_tasks"]
    assert digest(reports) == REFERENCE[name]["reports"]


def test_the_answer_rows_and_compliant_mask_equal_the_per_item_answer_key(
    loaded: tuple[str, Catalog],
) -> None:
    _, catalog = loaded
    items = list(catalog.items)
    for task in random_tasks(catalog, 40, seed=4):
        rows = answer_rows(task, catalog)
        ids = answers(task, items)
        assert ids_of(catalog, rows) == ids
        answer_items = [it for it in items if it.id in set(ids)]
        compliant = rows[compliant_mask(task, catalog)[rows]]
        assert ids_of(catalog, compliant) == compliant_answers(task, answer_items)


def test_the_random_tasks_reach_most_problem_codes(reports: list[TaskReport]) -> None:
    seen = Counter(p.code for r in reports for p in [*r.errors, *r.warnings])
    assert len(seen) >= 12, seen
    assert sum(len(r.answers) for r in reports) > 0


def _as_per_item(tasks: list[RecommendationTask]) -> list[RecommendationTask]:
    """The tasks with the id the per-item generator gave every user (user_1): each user
    now has one of its own, so that no two tasks look like one user's."""
    assert [t.user.user_id for t in tasks] == [f"u_{t.id}" for t in tasks]
    user = {"user_id": "user_1"}
    return [t.model_copy(update={"user": t.user.model_copy(update=user)}) for t in tasks]


def test_generated_tasks_equal_the_per_item_generator(loaded: tuple[str, Catalog]) -> None:
    name, catalog = loaded
    tasks = generate_tasks(catalog, 12, seed=3)
    assert digest(_as_per_item(tasks)) == REFERENCE[name]["generate"]


def test_the_builtin_suite_report_is_unchanged() -> None:
    assert digest([validate_suite(load_suite("builtin"))]) == BUILTIN_SUITE_REPORT


class _CountingItems(Sequence[Item]):
    def __init__(self, items: Sequence[Item]) -> None:
        self.items = items
        self.decoded = 0

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index):  # type: ignore[no-untyped-def,override]
        self.decoded += 1
        return self.items[index]

    def __iter__(self) -> Iterator[Item]:
        for it in self.items:
            self.decoded += 1
            yield it


def test_generating_tasks_decodes_only_the_items_it_draws(
    loaded: tuple[str, Catalog], monkeypatch: pytest.MonkeyPatch
) -> None:
    name, catalog = loaded
    counting = _CountingItems(catalog.items)
    monkeypatch.setattr(type(catalog), "items", property(lambda self: counting))
    tasks = generate_tasks(catalog, 12, seed=3)
    assert digest(_as_per_item(tasks)) == REFERENCE[name]["generate"]
    assert 0 < counting.decoded < len(catalog) / 2
