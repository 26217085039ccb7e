"""Generating ranking tasks from interaction data, seeded.

For a sampled user, a target is a record of the test part of their chronological 8:1:1
split whose item is new to them and which has at least one record before it (the first
`per_user` such records, default 1); the history is their last (at most 10) items before it; the 19 negatives are
drawn uniformly from the items outside every record of theirs up to the target. Only
targets at or after `cutoff` (default: the 80th percentile of all record times) are
used, so a collaborative model trained on the records before the earliest target
(see `ranking_data` in server/ranking/app.py) has most of the data and none of any task's future.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions, Part
from taurec.tasks.ranking.task import MAX_HISTORY, N_CANDIDATES, RankingTask


def default_cutoff(data: Interactions) -> int:
    return int(np.quantile(data.time, 0.6)) if len(data) else 0


def _targets(data: Interactions, u: int, cutoff: int) -> Iterator[int]:
    lo, hi = data.span(u)
    parts = data.parts
    for r in range(lo + 1, hi):
        if parts[r] != Part.TEST or data.time[r] < cutoff:
            continue
        if data.item[r] in data.item[lo:r]:
            continue
        if data.time[r] > data.time[lo]:  # something strictly before it
            yield r


def generate_ranking_tasks(
    data: Interactions,
    n: int,
    seed: int,
    *,
    cutoff: int | None = None,
    prefix: str = "rank",
    per_user: int = 1,
) -> list[RankingTask]:
    """Up to `n` tasks, at most `per_user` per user (users in a seeded order, their
    targets in time order); DataError when the data has no user with a usable target."""
    if len(data.items) < N_CANDIDATES + MAX_HISTORY:
        raise DataError(
            f"has {len(data.items)} items; ranking tasks need at least "
            f"{N_CANDIDATES + MAX_HISTORY}",
            source=data.source,
        )
    rng = np.random.default_rng(seed)
    cutoff = default_cutoff(data) if cutoff is None else cutoff
    tasks: list[RankingTask] = []
    width = len(str(max(n - 1, 1)))
    for u in rng.permutation(len(data.user_ids)):
        if len(tasks) >= n:
            break
        for r in list(_targets(data, int(u), cutoff))[:per_user]:
            if len(tasks) < n:
                tasks.append(_task(data, rng, int(u), r, f"{prefix}_{len(tasks):0{width}d}"))
    if not tasks:
        raise DataError(
            "has no user with a test-split record after the cutoff and a history before it; "
            "expected users with at least 3 records",
            source=data.source,
        )
    return tasks


def _task(
    data: Interactions, rng: np.random.Generator, u: int, r: int, task_id: str
) -> RankingTask:
    """The task whose target is record r of user u."""
    t = int(data.time[r])
    lo, hi = data.span(u)
    b_lo, b_hi = data.before(u, t)
    history = [data.items[i].id for i in data.item[max(b_lo, b_hi - MAX_HISTORY) : b_hi]]
    upto = lo + int(np.searchsorted(data.time[lo:hi], t, side="right"))
    seen = set(data.item[lo:upto].tolist())  # everything the user had by the target time
    negatives: list[int] = []
    while len(negatives) < N_CANDIDATES - 1:
        i = int(rng.integers(0, len(data.items)))
        if i not in seen and i not in negatives:
            negatives.append(i)
    candidates = [data.items[i].id for i in [int(data.item[r]), *negatives]]
    rng.shuffle(candidates)
    return RankingTask(
        id=task_id,
        user_id=data.user_ids[u],
        target_time=t,
        history=history,
        candidates=candidates,
        positive=data.items[int(data.item[r])].id,
    )
