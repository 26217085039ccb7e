"""No ranking tool output depends on the task's answer, on anything after its target time,
or on any other task's answer in the same suite: for the global and the per-user split,
and for each of their parts (train, valid, test)."""

from __future__ import annotations

import numpy as np
import pytest
from support.ranking import all_tool_outputs, small_data

from taurec.catalog.interactions import Interactions
from taurec.catalog.movielens import read_movielens
from taurec.catalog.splits import Scheme
from taurec.server.ranking.tools import RankingData
from taurec.tasks.ranking.generator import generate_ranking_tasks
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.ranking.validate import validate_ranking_tasks

SPLITS = [
    (scheme, part) for scheme in ("global", "per-user") for part in ("train", "valid", "test")
]


def _suite(data: Interactions, scheme: Scheme, part: str) -> list[RankingTask]:
    # three tasks per user: siblings share a user, the case that used to leak
    return generate_ranking_tasks(data, 24, seed=3, split=part, scheme=scheme, per_user=3)


def _with_answers_swapped(
    data: Interactions, tasks: list[RankingTask], keep: RankingTask
) -> Interactions:
    """`data` with the positive record of every task but `keep` changed to another item."""
    item = data.item.copy()
    for task in tasks:
        if task.id == keep.id:
            continue
        u = data.user_of(task.user_id)
        lo, hi = data.span(u)
        r = next(
            r
            for r in range(lo, hi)
            if data.time[r] == task.target_time and data.items[data.item[r]].id == task.positive
        )
        item[r] = (item[r] + 1) % len(data.items)
    return Interactions.build(
        data.source, data.items, data.user_ids, data.user, item, data.rating, data.time,
        data.category_shape,
    )  # fmt: skip


def _future_free(data: Interactions, rd: RankingData, task: RankingTask) -> RankingData:
    """The same model and hidden records over a copy holding nothing at or after the target."""
    return RankingData(data.without_records_from(task.target_time), rd.cutoff, rd.horizons)


def _assert_no_leak(
    data: Interactions, tasks: list[RankingTask], scheme: Scheme, part: str
) -> None:
    rd = RankingData.for_tasks(data, tasks, scheme, part)
    for task in tasks[:8]:
        outputs = all_tool_outputs(rd, task)
        swapped = _with_answers_swapped(data, tasks, task)
        assert (
            all_tool_outputs(RankingData.for_tasks(swapped, tasks, scheme, part), task) == outputs
        )
        assert all_tool_outputs(_future_free(data, rd, task), task) == outputs, task.id


@pytest.mark.parametrize(("scheme", "part"), SPLITS)
def test_no_output_depends_on_the_future_or_on_a_sibling_tasks_answer(scheme: Scheme, part: str):
    data = small_data()
    tasks = _suite(data, scheme, part)
    assert len({t.user_id for t in tasks}) < len(tasks), "expected users with several tasks"
    _assert_no_leak(data, tasks, scheme, part)


@pytest.mark.parametrize(("scheme", "part"), SPLITS)
def test_no_history_holds_a_sibling_tasks_answer(scheme: Scheme, part: str):
    tasks = _suite(small_data(), scheme, part)
    answers = {(t.user_id, t.positive) for t in tasks}
    for task in tasks:
        assert not {(task.user_id, i) for i in task.history} & answers, task.id


def test_the_sibling_check_can_fail_without_the_hidden_records():
    """Without the suite's horizons a later sibling's tools show an earlier one's answer."""
    data = small_data()
    tasks = _suite(data, "global", "test")
    cutoff = min(t.target_time for t in tasks)
    plain = RankingData(data, cutoff)
    changed = [
        t
        for t in tasks
        if all_tool_outputs(RankingData(_with_answers_swapped(data, tasks, t), cutoff), t)
        != all_tool_outputs(plain, t)
    ]
    assert changed


def test_the_global_split_trains_the_model_on_the_train_part_only():
    data = small_data()
    tasks = _suite(data, "global", "test")
    rd = RankingData.for_tasks(data, tasks, "global", "test")
    times = np.sort(data.time)
    assert rd.cutoff == times[int(0.8 * len(times))]  # the train part's end: no test target
    assert rd.model.users.nnz == len(
        {(u, i) for u, i, t in zip(data.user, data.item, data.time, strict=True) if t < rd.cutoff}
    )


@pytest.mark.parametrize("part", ["train", "valid", "test"])
def test_movielens_100k_tasks_of_each_global_part_leak_nothing(part: str):
    pytest.importorskip("recbole", exc_type=ImportError)
    data = read_movielens("recbole")
    tasks = _suite(data, "global", part)
    assert len(tasks) == 24
    assert validate_ranking_tasks(tasks, data) == {}
    _assert_no_leak(data, tasks, "global", part)
