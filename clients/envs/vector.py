"""`VectorEnv`: G episodes at once over one loaded suite and one in-process server, for
group rollouts (GRPO samples G completions of one prompt). Every step runs the G actions
concurrently on the host's event loop, so simulated users and tools that wait (an LLM
user, say) overlap.

    vec = VectorEnv("ranking:builtin", n=8)
    observations = vec.reset("t0001")                    # G trials of one task
    results = vec.step([action_1, ..., action_8])       # None for an episode that is done
    [r.reward for r in results]                          # each the evaluator's reward
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio

from taurec.clients.envs.env import MAX_STEPS, StepResult, TaurecEnv
from taurec.clients.envs.host import EnvHost
from taurec.tasks.suite import Suite


class VectorEnv:
    """`n` TaurecEnvs sharing one EnvHost (built from `host`, a suite spec, with
    `settings`, unless an EnvHost is given)."""

    def __init__(
        self,
        host: EnvHost | Suite | str = "builtin",
        n: int = 8,
        *,
        max_steps: int = MAX_STEPS,
        **settings: Any,
    ) -> None:
        if n < 1:
            raise ValueError(f"n: expected at least 1 environment, got {n}")
        self.owns_host = not isinstance(host, EnvHost)
        self.host = host if isinstance(host, EnvHost) else EnvHost(host, **settings)
        self.envs = [TaurecEnv(self.host, max_steps=max_steps) for _ in range(n)]

    def __len__(self) -> int:
        return len(self.envs)

    @property
    def done(self) -> list[bool]:
        return [env.done for env in self.envs]

    def reset(
        self, tasks: str | Any | Sequence[Any] | None = None, agent: dict[str, Any] | None = None
    ) -> list[str]:
        """Start one episode in every environment: all of one task (an id or task; G trials
        of it, numbered in order), or one task each (a sequence of n). `agent` names the
        model in every log header, as TaurecEnv.reset's does."""
        if isinstance(tasks, list | tuple):
            if len(tasks) != len(self.envs):
                raise ValueError(f"tasks: expected {len(self.envs)}, got {len(tasks)}")
            chosen = list(tasks)
        else:
            chosen = [tasks] * len(self.envs)
        return self.host.call(self._reset, chosen, agent)

    def step(self, actions: Sequence[Any]) -> list[StepResult]:
        """One action per environment (None, or anything, for one whose episode is done:
        its last result is returned again)."""
        if len(actions) != len(self.envs):
            raise ValueError(f"actions: expected {len(self.envs)}, got {len(actions)}")
        return self.host.call(self._step, list(actions))

    def end_on_error(self, exc: BaseException) -> list[str | None]:
        """End every open episode after `exc` stopped the loop (TaurecEnv.end_on_error)."""
        return [env.end_on_error(exc) for env in self.envs]

    def close(self) -> None:
        for env in self.envs:
            env.close()
        if self.owns_host:
            self.host.close()

    def __enter__(self) -> VectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def _reset(self, tasks: list[Any], agent: dict[str, Any] | None) -> list[str]:
        # trials are numbered here, in order, before the episodes start at once
        trials = [self.host.next_trial(self.host.task(task).id) for task in tasks]
        out: list[str] = [""] * len(self.envs)

        async def one(i: int) -> None:
            out[i] = await self.envs[i].areset(tasks[i], trials[i], agent=agent)

        async with anyio.create_task_group() as tg:
            for i in range(len(self.envs)):
                tg.start_soon(one, i)
        return out

    async def _step(self, actions: list[Any]) -> list[StepResult]:
        out: list[StepResult | None] = [env.last if env.done else None for env in self.envs]

        async def one(i: int) -> None:
            out[i] = await self.envs[i].astep(actions[i])

        async with anyio.create_task_group() as tg:
            for i, env in enumerate(self.envs):
                if not env.done:
                    tg.start_soon(one, i)
        return [r if r is not None else StepResult("", 0.0, True, {}) for r in out]
