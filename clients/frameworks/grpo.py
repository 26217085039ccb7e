"""Online GRPO groups from environment rollouts, for a training loop of one's own:
`rollout_groups` plays G episodes of one task on a VectorEnv and returns their rewards
(the evaluator's, one per episode log), AgenticRec's advantages and the logs.

    with VectorEnv("ranking:builtin", n=8, log_dir="logs/grpo") as vec:
        group = rollout_groups(vec, "rank_000", ScriptedPolicy("ranking"), G=8)
    group.rewards, group.advantages, group.dropped, group.logs

The arithmetic is AgenticRec's list-wise GRPO and the very function `evaluator export
--format grpo` applies to logged trajectories (evaluator.ranking.export.group_advantage):
advantage = reward − the group's mean reward, the rollout itself included, with no
division by the standard deviation; a group whose rewards are all negative is dropped
(it is returned, marked `dropped`: a trainer skips it).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taurec.clients.envs import VectorEnv
from taurec.evaluator.ranking.export import GroupAdvantage, group_advantage


@dataclass(frozen=True)
class Group:
    task_id: str
    rewards: list[float]  # one per rollout, in trial order
    advantages: list[float]
    mean: float
    dropped: bool  # every reward is negative: no training signal (AgenticRec drops it)
    logs: list[Path]  # each rollout's episode log, scored by the evaluator
    end_reasons: list[str]


def group_advantages(rewards_per_group: Sequence[Sequence[float]]) -> list[GroupAdvantage]:
    """One GroupAdvantage (mean, advantages, dropped) per group of rewards, in order."""
    if isinstance(rewards_per_group, str) or not all(
        isinstance(g, Sequence) and not isinstance(g, str) for g in rewards_per_group
    ):
        raise ValueError("rewards_per_group: expected a list of groups, each a list of rewards")
    out = []
    for n, rewards in enumerate(rewards_per_group):
        try:
            out.append(group_advantage([float(r) for r in rewards]))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"rewards_per_group[{n}]: {exc}") from None
    return out


def rollout_groups(vector_env: VectorEnv, task: Any, policy: Any, G: int | None = None) -> Group:
    """G rollouts of `task` (an id or a task of the suite) in waves of len(vector_env),
    each trial numbered in order. `policy` acts with `policy.act(observation)` (or is a
    plain `policy(observation)` function); every rollout plays its own deep copy, reset
    first, so no state crosses rollouts. G defaults to the number of environments and
    must be a multiple of it."""
    n = len(vector_env)
    G = n if G is None else G
    if G < 1 or G % n:
        raise ValueError(f"G: expected a positive multiple of the {n} environments, got {G}")
    rewards: list[float] = []
    logs: list[Path] = []
    reasons: list[str] = []
    for _ in range(G // n):
        for result in _wave(vector_env, task, policy):
            rewards.append(float(result.reward))
            logs.append(Path(result.info["log"]))
            reasons.append(str(result.info.get("end_reason", "")))
    group = group_advantage(rewards)
    task_id = vector_env.envs[0].task.id
    return Group(task_id, rewards, group.advantages, group.mean, group.dropped, logs, reasons)


def _wave(vector_env: VectorEnv, task: Any, policy: Any) -> list[Any]:
    """One episode per environment, played to its end (an environment ends an episode
    still open after its max_steps, so this always returns)."""
    acts = []
    for _ in vector_env.envs:
        own = copy.deepcopy(policy)
        if callable(getattr(own, "reset", None)):
            own.reset()
        act = getattr(own, "act", own)
        if not callable(act):
            raise TypeError(
                f"policy: expected an object with act(observation) or a function, "
                f"got {type(policy).__name__}"
            )
        acts.append(act)
    observations = vector_env.reset(task)
    results: list[Any] = [None] * len(acts)
    while not all(vector_env.done):
        actions = [
            None if done else act(obs)
            for act, obs, done in zip(acts, observations, vector_env.done, strict=True)
        ]
        stepped = vector_env.step(actions)
        for i, result in enumerate(stepped):
            observations[i] = result.observation
            if result.done and results[i] is None:
                results[i] = result
    return results
