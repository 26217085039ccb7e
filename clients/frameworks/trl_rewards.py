"""taurec rewards for TRL's GRPOTrainer, without importing TRL (or torch):

    from trl import GRPOConfig, GRPOTrainer
    from taurec.clients.frameworks.trl_rewards import make_reward_funcs, taurec_dataset

    rewards = make_reward_funcs("ranking:builtin", log_dir="logs/grpo")
    trainer = GRPOTrainer(model=..., reward_funcs=rewards,
                          train_dataset=taurec_dataset("ranking:builtin"),
                          args=GRPOConfig(scale_rewards="none", ...))

TRL calls a reward function as `f(prompts=..., completions=..., completion_ids=...,
trainer_state=..., **columns)`: a completion is text, or (conversational datasets) a list
of message dicts whose assistant message holds the text and perhaps OpenAI `tool_calls`.

Single-turn ranking (`ranking_reward`): each completion is the model's whole reply to one
ranking task (the row's `task_id`). It is played as one taurec episode through TaurecEnv
(the reply is the action, read as the environment reads any reply) and its reward is the
evaluator's score of that episode's log. The episode has one step: a reply that calls
tools but gives no answer gets the tools' results and no further turn, so the episode is
ended as the environment ends any episode that runs out of steps (agent_error) and the
evaluator scores it as an episode without an answer: -1, AgenticRec's invalid answer. A
reply with no readable answer is submitted empty (-1); a completion that is not text is
read as an empty reply (-1). The log of every episode says which of these happened.

Multi-turn episodes go through `make_rollout_func` (trl_rollout.py); `env_reward_func`
reads the reward it passes on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from taurec.catalog.errors import DataError
from taurec.clients.envs import EnvHost, TaurecEnv
from taurec.tasks.suite import Suite, load_suite

#: The system message of single-turn ranking rows: the answer must come in this reply.
SINGLE_TURN_SYSTEM = (
    "You are a recommendation system assistant. Rank the candidates in this one reply: "
    "no tool results come back, and a reply without an answer is invalid. End with "
    "<answer>\\boxed{[i1, i2, ..., i10]}</answer>: exactly 10 unique 1-based candidate "
    "indices, most likely first."
)


class RewardFuncs(list):
    """The reward functions for `GRPOTrainer(reward_funcs=...)` (a list), with the
    environment host they share; `close()` ends it (and removes its temporary logs)."""

    def __init__(self, funcs: Sequence[Any], host: EnvHost) -> None:
        super().__init__(funcs)
        self.host = host

    def close(self) -> None:
        self.host.close()

    def __enter__(self) -> RewardFuncs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def taurec_dataset(
    suite: str | Suite = "ranking:builtin", *, multi_turn: bool = False, **settings: Any
) -> Any:
    """The suite's tasks as GRPO training rows, one per task: a `datasets.Dataset` when
    `datasets` is installed, else a list of dicts.

    Single-turn (ranking suites): `prompt` is the conversation the model answers (the
    system message SINGLE_TURN_SYSTEM and the task's opening, as an episode shows it) and
    `task_id` names the task `ranking_reward` plays. Multi-turn (any kind, for
    `make_rollout_func`): `prompt` is the task id itself (the rollout shows the model the
    episode's own opening), with `task_id` and `kind` columns. `settings` are EnvHost
    settings for reading the openings (a temporary host, closed before returning)."""
    loaded = suite if isinstance(suite, Suite) else load_suite(suite)
    if multi_turn:
        rows = [{"prompt": t.id, "task_id": t.id, "kind": loaded.kind} for t in loaded.tasks]
        return _as_dataset(rows)
    if loaded.kind != "ranking":
        raise DataError(
            f"suite {loaded.id!r} is of kind {loaded.kind!r}: single-turn rows are for ranking "
            "suites; use taurec_dataset(suite, multi_turn=True) with make_rollout_func"
        )
    rows = []
    with EnvHost(loaded, **settings) as host:
        env = TaurecEnv(host)
        for task in loaded.tasks:
            prompt = [
                {"role": "system", "content": SINGLE_TURN_SYSTEM},
                {"role": "user", "content": env.reset(task.id)},
            ]
            rows.append({"prompt": prompt, "task_id": task.id})
    return _as_dataset(rows)


def _as_dataset(rows: list[dict[str, Any]]) -> Any:
    try:
        from datasets import Dataset
    except ImportError:
        return rows
    return Dataset.from_list(rows)


def completion_text(completion: Any) -> tuple[str, dict[str, Any] | None]:
    """(text, message) of one completion as TRL passes it: text, or a list of message dicts
    (the last assistant message is the reply; its content may be a list of text parts, and
    its OpenAI `tool_calls` are read from `message`). Anything else reads as no text."""
    if isinstance(completion, str):
        return completion, None
    if isinstance(completion, Mapping):
        completion = [completion]
    if not isinstance(completion, list | tuple):
        return "", None
    messages = [m for m in completion if isinstance(m, Mapping)]
    replies = [m for m in messages if m.get("role", "assistant") == "assistant"]
    if not replies:
        return "", None
    message = dict(replies[-1])
    content = message.get("content")
    if isinstance(content, list):
        parts = [p.get("text") if isinstance(p, Mapping) else p for p in content]
        content = "".join(p for p in parts if isinstance(p, str))
    text = content if isinstance(content, str) else ""
    return text, (message if message.get("tool_calls") else None)


def ranking_reward(
    prompts: Sequence[Any] | None,
    completions: Sequence[Any],
    task_id: Sequence[str] | None = None,
    *,
    env: TaurecEnv,
    **kwargs: Any,
) -> list[float]:
    """One reward per completion: the evaluator's reward of the single-step ranking episode
    it plays on its row's task (see the module doc). `env` is a TaurecEnv on a ranking
    suite with max_steps=1 (make_reward_funcs builds it); `prompts` and the other columns
    TRL passes are not read."""
    if env.kind != "ranking" or env.max_steps != 1:
        raise ValueError(
            "env: expected a single-step TaurecEnv on a ranking suite (make_reward_funcs), "
            f"got kind {env.kind!r} with max_steps={env.max_steps}"
        )
    if task_id is None:
        raise ValueError(
            "task_id: expected the dataset's task_id column, one per completion "
            "(build the rows with taurec_dataset)"
        )
    if isinstance(task_id, str) or len(task_id) != len(completions):
        raise ValueError(
            f"task_id: expected a list of {len(completions)} task ids, one per completion"
        )
    rewards = []
    for completion, task in zip(completions, task_id, strict=True):
        text, message = completion_text(completion)
        env.reset(task)
        result = env.step(text, message)
        rewards.append(float(result.reward))
    return rewards


def make_reward_funcs(
    suite: str | Suite = "ranking:builtin",
    log_dir: str | Path | None = None,
    *,
    label: str = "grpo",
    **settings: Any,
) -> RewardFuncs:
    """[ranking_reward] over one environment host built here (on `suite`, logging episodes
    under `label` to `log_dir`, a temporary folder when None; `settings` are EnvHost
    settings). Close the list (or use it as a context manager) to end the host."""
    host = EnvHost(suite, log_dir=log_dir, label=label, **settings)
    if host.kind != "ranking":
        kind = host.kind
        host.close()
        raise DataError(
            f"suite kind {kind!r}: single-turn rewards are for ranking suites; play "
            "recommendation and stream episodes with make_rollout_func and env_reward_func"
        )
    env = TaurecEnv(host, max_steps=1)

    def reward(
        prompts: Any = None, completions: Any = (), task_id: Any = None, **kwargs: Any
    ) -> list[float]:
        return ranking_reward(prompts, completions, task_id, env=env, **kwargs)

    reward.__name__ = reward.__qualname__ = "ranking_reward"  # TRL logs rewards/<name>
    return RewardFuncs([reward], host)


def env_reward_func(
    prompts: Any = None,
    completions: Sequence[Any] = (),
    env_reward: Sequence[float] | None = None,
    **kwargs: Any,
) -> list[float]:
    """The episode rewards `make_rollout_func` computed (its `env_reward` field, which TRL
    passes to every reward function): each the evaluator's reward of one episode log."""
    if env_reward is None:
        raise ValueError(
            "env_reward: expected the rollout's env_reward field; use env_reward_func with "
            "GRPOTrainer(rollout_func=make_rollout_func(...))"
        )
    if len(env_reward) != len(completions):
        raise ValueError(
            f"env_reward: expected {len(completions)} rewards, one per completion, "
            f"got {len(env_reward)}"
        )
    return [float(r) for r in env_reward]
