"""Stream suites over BIEL's released data: BIEL's choice-set sampler, utilities from its
score table, its skip rule, and streams that load (fixtures: tests/support/biel_files.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import random

import pytest
from support.biel_files import write_biel

from taurec.catalog.builders.biel_data import BielData, load_biel_data
from taurec.catalog.choice_sets import Category
from taurec.tasks.stream.biel_streams import (
    ScoreTable,
    biel_choice_set,
    biel_seed,
    biel_streams,
    covered_pairs,
)
from taurec.tasks.stream.generator import CrossStream, GenerationError, StreamPlan
from taurec.tasks.stream.task import StreamSetting, StreamTask, UtilitySource


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> BielData:
    return load_biel_data(write_biel(tmp_path_factory.mktemp("biel")).files)


@pytest.fixture(scope="module")
def tasks(data: BielData) -> list[StreamTask]:
    return biel_streams(data, StreamPlan(n=3, episodes=2, seed=5)).tasks


def category(n: int, name: str = "Mug Sets") -> Category:
    return Category(id="biel:2", name=name, item_ids=[str(k) for k in range(n, 0, -1)])


def test_a_small_category_is_its_whole_choice_set_by_numeric_id() -> None:
    assert biel_choice_set(category(20), seed=3) == [str(k) for k in range(1, 21)]


def test_a_large_category_is_sampled_as_biels_get_products_by_category() -> None:
    seed = 12
    digest = int(hashlib.md5(b"Mug Sets").hexdigest(), 16)
    rng = random.Random((seed + digest % 2**31) % 2**31)
    expected = sorted(rng.sample(list(range(1, 41)), 30))
    assert biel_choice_set(category(40), seed) == [str(k) for k in expected]


def test_the_sampling_seed_hashes_the_category_name_and_wraps_at_2_to_the_31() -> None:
    assert biel_seed(2**31, "Mug Sets") == biel_seed(0, "Mug Sets")
    assert biel_choice_set(category(40, "Mugs"), 1) != biel_choice_set(category(40), 1)
    assert biel_choice_set(category(40), 1) == biel_choice_set(category(40), 1)


def _table(data: BielData) -> ScoreTable:
    return ScoreTable(data.scores, data.persona_numbers, data.category_numbers)


def _episode_items(data: BielData, persona: str, cat: str) -> tuple[ScoreTable, object]:
    table = _table(data)
    c = next(c for c in data.categories if c.id == cat)
    items = {i.id: i for i in data.items}
    p = next(p for p in data.personas if p.id == persona)
    return table, table(p, c, [items[i] for i in biel_choice_set(c, 0)])


def test_utilities_are_the_score_tables(data: BielData) -> None:
    _, utilities = _episode_items(data, "biel-0", "biel:2")
    assert isinstance(utilities, dict) and len(utilities) == 16
    assert all(utilities[i] == data.scores[(0, 2, int(i))] for i in utilities)


def test_a_pair_whose_best_is_below_60_is_skipped_and_counted(data: BielData) -> None:
    table, utilities = _episode_items(data, "biel-3", "biel:3")
    assert utilities is None
    assert table.below_best == {("biel-3", "biel:3")} and not table.unscored


def test_a_choice_set_with_an_unscored_product_is_skipped_and_counted(data: BielData) -> None:
    table, utilities = _episode_items(data, "biel-2", "biel:4")
    assert utilities is None
    assert table.unscored == {("biel-2", "biel:4")} and not table.below_best
    assert "1 a product of the choice set without a score" in table.summary()


def test_streams_hold_llm_utilities_on_biels_choice_sets(tasks: list[StreamTask]) -> None:
    assert len(tasks) == 9
    for task in tasks:
        assert task.utility_source is UtilitySource.LLM
        for ep in task.episodes:
            assert ep.item_ids == sorted(ep.item_ids, key=int)
            assert len(ep.item_ids) == {"biel:1": 30, "biel:2": 16, "biel:3": 15}.get(
                ep.category_id, 22
            )


def test_streams_never_show_a_skipped_pair_an_unscored_persona_or_a_pruned_category(
    tasks: list[StreamTask],
) -> None:
    pairs = {(e.persona_id, e.category_id) for t in tasks for e in t.episodes}
    assert ("biel-3", "biel:3") not in pairs and ("biel-2", "biel:4") not in pairs
    assert {p for p, _ in pairs} <= {"biel-0", "biel-2", "biel-3"}
    assert {c for _, c in pairs} <= {"biel:1", "biel:2", "biel:3", "biel:4"}


def test_the_summary_says_what_was_read_and_skipped(data: BielData) -> None:
    summary = biel_streams(data, StreamPlan(n=4, episodes=2, seed=1)).summary
    assert summary.startswith("read 59 products, 5 categories (4 kept, 1 pruned")
    assert "3 personas and 12 scored (persona, category) pairs" in summary
    assert "skipped" in summary and "\n" not in summary


def test_too_few_usable_pairs_is_a_generation_error_that_says_what_was_skipped(
    data: BielData,
) -> None:
    plan = StreamPlan(settings=(StreamSetting.VARIABLE_PERSONA,), n=1, episodes=4)
    with pytest.raises(
        GenerationError, match=r"no category is paired with 4 personas.*read 59 products"
    ):
        biel_streams(data, plan)


def test_only_pairs_scored_for_every_product_of_the_category_are_drawn(data: BielData) -> None:
    pairs = covered_pairs(data)
    assert "biel:4" not in pairs["biel-2"]  # one product of it has no score
    assert sum(len(v) for v in pairs.values()) == 11
    tasks = biel_streams(data, StreamPlan(n=4, episodes=2, seed=1)).tasks
    drawn = {(e.persona_id, e.category_id) for t in tasks for e in t.episodes}
    assert all(c in pairs[p] for p, c in drawn)


def test_a_sparse_cache_still_fills_streams_from_the_pairs_it_covers(data: BielData) -> None:
    # keep the scores of one persona only: most (persona, category) draws are then unscored
    sparse = {k: v for k, v in data.scores.items() if k[0] == 0}
    thin = dataclasses.replace(data, scores=sparse)
    plan = StreamPlan(settings=(StreamSetting.VARIABLE_CATEGORY,), n=3, episodes=3, seed=2)
    tasks = biel_streams(thin, plan).tasks
    assert {e.persona_id for t in tasks for e in t.episodes} == {"biel-0"}


def test_biels_data_is_drawn_as_biels_seeds_unless_the_plan_isolates_streams(
    data: BielData, tasks: list[StreamTask]
) -> None:
    plan = StreamPlan(n=3, episodes=2, seed=5, cross_stream=CrossStream.BIEL)
    assert [t.sha256() for t in biel_streams(data, plan).tasks] == [t.sha256() for t in tasks]
    isolated = dataclasses.replace(plan, cross_stream=CrossStream.ISOLATED)
    with pytest.raises(GenerationError, match=r"--cross-stream biel does not\) \(read 59"):
        biel_streams(data, isolated)
