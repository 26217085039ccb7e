"""RL-ready exports of ranking episodes (`evaluator export LOGDIR --format grpo|ppr`).

grpo: one JSON line per group (the G trials of one task under one agent label): the
prompt, each rollout's tool-use trajectory, reward and advantage = reward − the group's
mean reward (the rollout itself included, no division by the standard deviation, as in
AgenticRec's list-wise GRPO); a group whose rewards are all negative is marked dropped.

ppr: AgenticRec's hard-negative pairs. For each rollout that did not rank the positive
first: one negative drawn uniformly (seeded) from the items ranked above the positive,
or from the whole list when the positive is missing; each pair yields two tasks, asking
which item the user is MORE and LESS likely to buy next. Item A is the positive in the
MORE task and the negative in the LESS task, so the correct answer is always A; the order
is logged in each record (`a_is`).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterator
from statistics import fmean
from typing import Any

from taurec.evaluator.ranking.scoring import ranking_answer
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.trajectory.format import Trajectory

PPR_PROMPT = (
    "Given the user's interaction history below and two candidate items, decide which item "
    "the user is {direction} LIKELY to buy next.\n\n{history}\n\nItem A: {a}\nItem B: {b}\n\n"
    "Answer with \\boxed{{A}} or \\boxed{{B}}."
)


def rollout(task: RankingTask, trajectory: Trajectory, reward: float) -> dict[str, Any]:
    ranking, calls = ranking_answer(trajectory)
    steps = [
        {k: ev.get(k) for k in ("name", "arguments", "content", "is_error") if k in ev}
        | {"type": ev["type"]}
        for ev in trajectory.events
        if ev["type"] in ("tool_call", "tool_result")
    ]
    rank = ranking.index(task.positive) + 1 if ranking and task.positive in ranking else None
    return {
        "trial": trajectory.header.trial,
        "ranking": ranking,
        "rank": rank,
        "tool_calls": calls,
        "reward": reward,
        "trajectory": steps,
    }


def grpo_groups(
    episodes: list[tuple[str, RankingTask, Trajectory, float]],
) -> Iterator[dict[str, Any]]:
    """`episodes`: (label, task, trajectory, reward). One group per (label, task)."""
    groups: dict[tuple[str, str], list[tuple[RankingTask, Trajectory, float]]] = defaultdict(list)
    for label, task, trajectory, reward in episodes:
        groups[label, task.id].append((task, trajectory, reward))
    for (label, task_id), members in sorted(groups.items()):
        members.sort(key=lambda m: m[1].header.trial)
        mean = fmean(m[2] for m in members)
        rollouts = [rollout(t, tr, r) | {"advantage": r - mean} for t, tr, r in members]
        prompt = _opening(members[0][1])
        yield {
            "label": label,
            "task_id": task_id,
            "prompt": prompt,
            "group_size": len(members),
            "mean_reward": mean,
            "dropped": all(m[2] < 0 for m in members),
            "rollouts": rollouts,
        }


_CANDIDATE = re.compile(r"^\d+\. \[([^\]]+)\] (.*)$", re.MULTILINE)


def _opening(trajectory: Trajectory) -> str:
    return next((ev["text"] for ev in trajectory.events if ev["type"] == "user_message"), "")


def ppr_pairs(
    episodes: list[tuple[str, RankingTask, Trajectory, float]], seed: int
) -> Iterator[dict[str, Any]]:
    """Titles and history come from each episode's opening, as the agent saw them."""
    rng = random.Random(seed)
    for label, task, trajectory, _ in sorted(
        episodes, key=lambda e: (e[0], e[1].id, e[2].header.trial)
    ):
        ranking, _ = ranking_answer(trajectory)
        if not ranking or ranking[:1] == [task.positive]:
            continue
        pool = ranking[: ranking.index(task.positive)] if task.positive in ranking else ranking
        pool = [i for i in pool if i != task.positive]
        if not pool:
            continue
        negative = rng.choice(pool)
        opening = _opening(trajectory)
        titles = dict(_CANDIDATE.findall(opening))
        start = opening.find("User history")
        history = opening[start : opening.find("\n\nCandidates", start)] if start >= 0 else ""
        for direction, a, b, a_is in (
            ("MORE", task.positive, negative, "positive"),
            ("LESS", negative, task.positive, "negative"),
        ):
            yield {
                "label": label,
                "task_id": task.id,
                "trial": trajectory.header.trial,
                "direction": direction,
                "prompt": PPR_PROMPT.format(
                    direction=direction, history=history, a=titles.get(a, a), b=titles.get(b, b)
                ),
                "item_a": a,
                "item_b": b,
                "a_is": a_is,
                "answer": "A",
            }
