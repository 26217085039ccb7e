"""Generating ranking tasks from interaction data, seeded.

The data is split by a named scheme (taurec.catalog.splits; `global`, AgenticRec's 8:1:1
over all records sorted by time, by default) and tasks are drawn for one part
(`split`: train, valid or test). For a sampled user, a target is a record of that part
whose item is new to them and which has at least one record before it (the first
`per_user` such records, default 1); the 19 negatives are drawn uniformly from the items
the user had not had by their earliest target in the suite (the target itself, when it
is their only one).

The history is the user's last (at most 10) items before the user's *earliest* target in
the suite, so with `per_user` > 1 no task's history holds a sibling task's answer (the
server hides the same records from every tool; see `horizons`), and siblings' candidate
lists share no item (see `_task`).

`cutoff` keeps only targets at or after a time. Its default: none for the global split's
valid and test parts (they start after the train part, on which the collaborative model is
trained); the 60th percentile of all record times for its train part and for every part
of the per-user split, so the model, trained on the records before the suite's earliest
target (see `ranking_data` in server/ranking/app.py), still sees most of the data and none
of any task's future.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions, Part
from taurec.catalog.splits import Scheme, part_of, scheme_of, split_parts
from taurec.tasks.ranking.siblings import sibling_leaks
from taurec.tasks.ranking.task import MAX_HISTORY, N_CANDIDATES, RankingTask

#: Where the 60th-percentile default cutoff applies (see the module docstring).
LATE_SHARE = 0.6


def default_cutoff(
    data: Interactions, scheme: Scheme = "per-user", part: Part = Part.TEST
) -> int | None:
    if scheme == "global" and part != Part.TRAIN:
        return None
    return int(np.quantile(data.time, LATE_SHARE)) if len(data) else 0


def _targets(
    data: Interactions, parts: np.ndarray, u: int, part: Part, cutoff: int | None
) -> Iterator[int]:
    lo, hi = data.span(u)
    for r in range(lo + 1, hi):
        if parts[r] != part or (cutoff is not None and data.time[r] < cutoff):
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
    split: str = "test",
    scheme: Scheme = "global",
    cutoff: int | None = None,
    prefix: str = "rank",
    per_user: int = 1,
) -> list[RankingTask]:
    """Up to `n` tasks from part `split`, at most `per_user` per user (users in a seeded
    order, their targets in time order); DataError when no user has a usable target."""
    part = part_of(split, "split")
    scheme = scheme_of(scheme, "split scheme")
    if len(data.items) < N_CANDIDATES + MAX_HISTORY:
        raise DataError(
            f"has {len(data.items)} items; ranking tasks need at least "
            f"{N_CANDIDATES + MAX_HISTORY}",
            source=data.source,
        )
    rng = np.random.default_rng(seed)
    parts = split_parts(data, scheme)
    cutoff = default_cutoff(data, scheme, part) if cutoff is None else cutoff
    tasks: list[RankingTask] = []
    width = len(str(max(n - 1, 1)))
    for u in rng.permutation(len(data.user_ids)):
        if len(tasks) >= n:
            break
        targets = list(_targets(data, parts, int(u), part, cutoff))[: min(per_user, n - len(tasks))]
        if targets:
            first = int(data.time[targets[0]])
            taken = {int(data.item[r]) for r in targets}  # no sibling's item in another list
            for r in targets:
                task_id = f"{prefix}_{len(tasks):0{width}d}"
                tasks.append(_task(data, rng, int(u), r, first, task_id, taken))
    if tasks and (leaks := sibling_leaks(tasks)):
        task_id, problems = next(iter(leaks.items()))
        raise DataError(f"task {task_id!r}: {problems[0]}; refusing a suite that leaks it")
    if not tasks:
        after = "" if cutoff is None else " after the cutoff"
        raise DataError(
            f"has no user with a {split}-part record{after} ({scheme} split) and a history "
            "before it; expected users with at least 2 records there",
            source=data.source,
        )
    return tasks


def _task(
    data: Interactions,
    rng: np.random.Generator,
    u: int,
    r: int,
    first: int,
    task_id: str,
    taken: set[int],
) -> RankingTask:
    """The task whose target is record r of user u; the history ends before `first`, the
    user's earliest target in the suite, and the negatives are drawn from the items the
    user had not had by then, outside `taken`: every sibling's positive and the negatives
    already drawn for siblings (the new ones are added to it). So siblings' lists share no
    item: a shared one would tell which candidates are not an answer (the earliest
    task's positive is in the user's records by its own target, so it can never be a
    sibling's negative, while a later positive can)."""
    t = int(data.time[r])
    positive = int(data.item[r])
    lo, hi = data.span(u)
    b_lo, b_hi = data.before(u, first)
    history = [data.items[i].id for i in data.item[max(b_lo, b_hi - MAX_HISTORY) : b_hi]]
    upto = lo + int(np.searchsorted(data.time[lo:hi], first, side="right"))
    seen = set(data.item[lo:upto].tolist())  # everything the user had by their first target
    negatives: list[int] = []
    while len(negatives) < N_CANDIDATES - 1:
        i = int(rng.integers(0, len(data.items)))
        if i not in seen and i not in taken and i not in negatives:
            negatives.append(i)
    taken.update(negatives)
    candidates = [data.items[i].id for i in [positive, *negatives]]
    rng.shuffle(candidates)
    return RankingTask(
        id=task_id,
        user_id=data.user_ids[u],
        target_time=t,
        history=history,
        candidates=candidates,
        positive=data.items[positive].id,
    )
