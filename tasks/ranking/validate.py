"""Checking ranking tasks against their interaction data: the user and every item exist,
the positive is the user's record at the target time, the history is the user's last
items before their earliest target in the suite (the target itself when it is their
only one), and no negative is an item the user had up to the target."""

from __future__ import annotations

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions
from taurec.tasks.ranking.siblings import horizons, sibling_leaks
from taurec.tasks.ranking.task import MAX_HISTORY, RankingTask


def ranking_task_problems(
    task: RankingTask, data: Interactions, horizon: int | None = None
) -> list[str]:
    """`horizon`: the user's earliest target time in the suite (default: this task's)."""
    try:
        u = data.user_of(task.user_id)
        for item in [*task.history, *task.candidates]:
            data.item_of(item)
    except DataError as exc:
        return [exc.detail]
    problems = []
    lo, hi = data.span(u)
    at = [data.items[data.item[r]].id for r in range(lo, hi) if data.time[r] == task.target_time]
    if task.positive not in at:
        problems.append(
            f"positive {task.positive!r} is not a record of user {task.user_id!r} at the target time"
        )
    b_lo, b_hi = data.before(u, task.target_time if horizon is None else horizon)
    expected = [data.items[i].id for i in data.item[max(b_lo, b_hi - MAX_HISTORY) : b_hi]]
    if task.history != expected:
        problems.append(
            "history is not the user's last items before their earliest target in the suite"
        )
    cut = task.target_time if horizon is None else horizon
    had = {data.items[data.item[r]].id for r in range(lo, hi) if data.time[r] <= cut}
    bad = sorted((set(task.candidates) - {task.positive}) & had)
    if bad:
        problems.append(
            f"negative {bad[0]!r} is an item the user had by their earliest target in the suite"
        )
    return problems


def validate_ranking_tasks(tasks: list[RankingTask], data: Interactions) -> dict[str, list[str]]:
    """Task id -> problems, for the tasks that have any."""
    first = horizons(tasks)
    out = {t.id: ranking_task_problems(t, data, first[t.user_id]) for t in tasks}
    for task_id, problems in sibling_leaks(tasks).items():
        out[task_id] = [*out.get(task_id, []), *problems]
    return {k: v for k, v in out.items() if v}
