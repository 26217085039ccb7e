"""Generating ranking tasks from interaction data, seeded.

For a sampled user, the target is the first record of the test part of their
chronological 8:1:1 split whose item is new to them and which has at least one record
before it; the history is their last (at most 10) items before it; the 19 negatives are
drawn uniformly from the items outside every record of theirs up to the target. Only
targets at or after `cutoff` (default: the 80th percentile of all record times) are
used, so a collaborative model trained on the records before the earliest target
(see server/ranking_context.py) has most of the data and none of any task's future.
"""

from __future__ import annotations

import numpy as np

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions, Part

from .ranking import MAX_HISTORY, N_CANDIDATES, RankingTask


def default_cutoff(data: Interactions) -> int:
    return int(np.quantile(data.time, 0.6)) if len(data) else 0


def _target(data: Interactions, u: int, cutoff: int) -> int | None:
    lo, hi = data.span(u)
    parts = data.parts
    for r in range(lo + 1, hi):
        if parts[r] != Part.TEST or data.time[r] < cutoff:
            continue
        if data.item[r] in data.item[lo:r]:
            continue
        if data.time[r] > data.time[lo]:  # something strictly before it
            return r
    return None


def generate_ranking_tasks(
    data: Interactions, n: int, seed: int, *, cutoff: int | None = None, prefix: str = "rank"
) -> list[RankingTask]:
    """Up to `n` tasks, one per user (users in a seeded order); DataError when the data
    has no user with a usable target."""
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
        r = _target(data, int(u), cutoff)
        if r is None:
            continue
        t = int(data.time[r])
        lo, _ = data.span(int(u))
        b_lo, b_hi = data.before(int(u), t)
        history = [data.items[i].id for i in data.item[max(b_lo, b_hi - MAX_HISTORY) : b_hi]]
        seen = set(data.item[lo : r + 1].tolist())
        negatives: list[int] = []
        while len(negatives) < N_CANDIDATES - 1:
            i = int(rng.integers(0, len(data.items)))
            if i not in seen and i not in negatives:
                negatives.append(i)
        candidates = [data.items[i].id for i in [int(data.item[r]), *negatives]]
        rng.shuffle(candidates)
        tasks.append(
            RankingTask(
                id=f"{prefix}_{len(tasks):0{width}d}",
                user_id=data.user_ids[int(u)],
                target_time=t,
                history=history,
                candidates=candidates,
                positive=data.items[int(data.item[r])].id,
            )
        )
    if not tasks:
        raise DataError(
            "has no user with a test-split record after the cutoff and a history before it; "
            "expected users with at least 3 records",
            source=data.source,
        )
    return tasks
