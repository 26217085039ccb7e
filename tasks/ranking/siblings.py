"""A suite's tasks of one user (siblings): where each user's view of the data stops, and
the ways one sibling could give another's answer away. The generator refuses a suite
that leaks; `taurec tasks validate` reports it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from taurec.tasks.ranking.pair import PairTask
from taurec.tasks.ranking.task import RankingTask


def horizons(tasks: Iterable[RankingTask]) -> dict[str, int]:
    """Each user's earliest target time among `tasks`: what that user's histories and every
    tool see stops there."""
    out: dict[str, int] = {}
    for task in tasks:
        out[task.user_id] = min(task.target_time, out.get(task.user_id, task.target_time))
    return out


def sibling_leaks(tasks: Sequence[RankingTask]) -> dict[str, list[str]]:
    """Task id -> how another task of the suite gives its answer away: its positive in a
    history of the same user (a sealed contestant opens every planned episode, so it
    reads every history), a history that runs past the user's earliest target, or a
    candidate shared with a sibling's list (the earliest task's positive can never be a
    later task's negative, while the negatives of both come from one pool, so a shared
    candidate is, more often than chance, not the answer)."""
    earliest: dict[str, RankingTask] = {}
    answers: dict[str, dict[str, str]] = {}
    listed: dict[tuple[str, str], str] = {}  # (user, candidate) -> the first task listing it
    out: dict[str, list[str]] = {}
    for task in tasks:
        for item in task.candidates:
            other = listed.setdefault((task.user_id, item), task.id)
            if other != task.id:
                for mine, theirs in ((task.id, other), (other, task.id)):
                    out.setdefault(mine, []).append(
                        f"candidate {item!r} is also a candidate of task {theirs!r} (same "
                        "user); siblings' candidate lists must share no item"
                    )
        answers.setdefault(task.user_id, {})[task.positive] = task.id
        known = earliest.get(task.user_id)
        if known is None or task.target_time < known.target_time:
            earliest[task.user_id] = task
    for task in tasks:
        for item in task.history:
            source = answers[task.user_id].get(item)
            if source is not None:
                out.setdefault(source, []).append(
                    f"its positive {item!r} is in the history of task {task.id!r} (same user)"
                )
        first = earliest[task.user_id]
        if task.history != first.history:
            out.setdefault(task.id, []).append(
                f"history differs from that of task {first.id!r}, the same user's earliest; "
                "a later task's history must stop where the earliest's does"
            )
    return out


def pair_leaks(tasks: Sequence[PairTask]) -> dict[str, list[str]]:
    """Task id -> how a PPR suite gives its answer away: pairs of one source ranking task
    mined from several rollouts share its positive, so "the item in the most pairs"
    finds it (a suite keeps one rollout's MORE and LESS task per source)."""
    rollouts: dict[str, set[tuple[str, int]]] = {}
    for task in tasks:
        rollouts.setdefault(task.source_task_id, set()).add((task.source_label, task.source_trial))
    return {
        task.id: [
            f"source task {task.source_task_id!r} gives pairs from "
            f"{len(rollouts[task.source_task_id])} rollouts, which share its positive; "
            "expected one rollout's pair per source"
        ]
        for task in tasks
        if len(rollouts[task.source_task_id]) > 1
    }
