"""taurec's environments as Gymnasium environments: `TaurecGymEnv`, a `gymnasium.Env`
over `TaurecEnv` whose observations and actions are text, registered as
`taurec/Ranking-v0` (ranking:builtin), `taurec/Dialogue-v0` (builtin) and
`taurec/Stream-v0` (stream:builtin).

    import gymnasium, taurec.clients.frameworks.gym_env
    env = gymnasium.make("taurec/Ranking-v0", log_dir="logs", max_steps=16)
    obs, info = env.reset(seed=0)                      # info["tools"]: the tool schemas
    obs, reward, terminated, truncated, info = env.step(model_text)

Gymnasium 1.4 loads no plugins (no entry points), so an id is known once this module is
imported; `gymnasium.make("taurec.clients.frameworks.gym_env:taurec/Ranking-v0")` imports
it on the way. Any `make` keyword reaches the environment: `suite=` (another suite of
the same spec form), `log_dir=`, `max_steps=`, and any ServerSettings field. Do not pass
`max_episode_steps`: Gymnasium's TimeLimit would cut an episode without ending it, so
it would never be scored; `max_steps` ends and scores it.

reset(seed=None, options=None): the task is `options["task_id"]`; without one, the
suite's tasks in turn (first, second, ...) until a seed is given; from then on, a task
drawn with the seeded `np_random`, which also draws each episode's seed (the simulated
user's randomness), so a seed reproduces both. `options["trial"]` numbers the episode
(default: trials of a task count up from 0). info: task_id, trial, kind, seed (None:
derived by the server from task and trial) and tools (OpenAI-style function tools).

step(action): the model's text (read as `clients/envs/actions.py` reads it: tool calls
in Hermes form, a ranking's boxed answer, a dialogue message), a tool call dict
`{"name": ..., "arguments": {...}}`, a list of them (one model response), or an
OpenAI-style assistant message `{"role": "assistant", "content": ..., "tool_calls":
[...]}`. Any other type raises TypeError; a text that cannot be read is a step whose
observation says why (info["unreadable"]). The reward is 0 until the episode ends, then
the evaluator's reward of the episode's log; `terminated` when the episode ended itself,
`truncated` when `max_steps` cut it (ended as agent_error). info: step, results (per
call: name, is_error, data) and, at the end, reward, metrics, passed, end_reason and log
(the log's path, as str). All of it is JSON-friendly; the full EpisodeScore is
`env.unwrapped.taurec.last.info["score"]`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from taurec.clients.envs.actions import MAX_TEXT, Unreadable
from taurec.clients.envs.env import MAX_STEPS, StepResult, TaurecEnv
from taurec.clients.envs.host import EnvHost
from taurec.clients.frameworks.gym_text import UnicodeText, in_charset
from taurec.tasks.shipped import BUILTIN_BY_KIND

#: The registered ids and the suite each plays.
ENV_IDS = {
    "taurec/Ranking-v0": BUILTIN_BY_KIND["ranking"],
    "taurec/Dialogue-v0": BUILTIN_BY_KIND["recommendation"],
    "taurec/Stream-v0": BUILTIN_BY_KIND["stream"],
}
#: The longest observation (a longer one, never seen in the shipped suites, is cut).
MAX_OBSERVATION = 1 << 20
_CUT = "\n[observation cut]"
OPTIONS = ("task_id", "trial")


class TaurecGymEnv(gym.Env[str, Any]):
    """One taurec episode at a time over `suite` (a suite spec, or an EnvHost to share
    with other environments); see the module doc for reset and step. It renders nothing:
    Gymnasium's default metadata (no render modes) stands."""

    def __init__(
        self,
        suite: str | EnvHost = "builtin",
        *,
        max_steps: int = MAX_STEPS,
        render_mode: str | None = None,
        **settings: Any,
    ) -> None:
        if render_mode is not None:
            raise ValueError(
                f"render_mode: taurec environments render nothing; got {render_mode!r}"
            )
        if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
            raise ValueError(f"max_steps: expected a whole number of at least 1, got {max_steps!r}")
        self.taurec = TaurecEnv(suite, max_steps=max_steps, **settings)
        self.observation_space = UnicodeText(MAX_OBSERVATION)
        self.action_space = UnicodeText(MAX_TEXT)
        self.render_mode = None
        self._turn = 0  # the next task of the cycle, while unseeded
        self._seeded = False

    @property
    def kind(self) -> str:
        return self.taurec.kind

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self._seeded = self._seeded or seed is not None
        task_id, trial = _options(options)
        if task_id is None:
            ids = self.taurec.task_ids
            if self._seeded:
                task_id = ids[int(self.np_random.integers(len(ids)))]
            else:
                task_id, self._turn = ids[self._turn % len(ids)], self._turn + 1
        episode_seed = int(self.np_random.integers(2**31)) if self._seeded else None
        observation = self.taurec.reset(task_id, trial=trial, seed=episode_seed)
        assert self.taurec.episode is not None
        info = {
            "task_id": task_id,
            "trial": self.taurec.episode.trial,
            "kind": self.kind,
            "seed": episode_seed,
            "tools": copy.deepcopy(self.taurec.tool_schemas()),
        }
        return observation_of(observation), info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        text, message = _action(action)
        result: StepResult = self.taurec.step(text, message)
        info: dict[str, Any] = {"step": self.taurec.steps, "results": _results(result)}
        parsed = result.info.get("action")
        if isinstance(parsed, Unreadable):
            info["unreadable"] = parsed.reason
        truncated = bool(result.info.get("truncated"))
        terminated = result.done and not truncated
        if result.done:
            info.update(
                reward=float(result.reward),
                metrics=dict(result.info["metrics"]),
                passed=bool(result.info["passed"]),
                end_reason=str(result.info["end_reason"]),
                log=str(result.info["log"]),
            )
        return observation_of(result.observation), float(result.reward), terminated, truncated, info

    def end_on_error(self, exc: BaseException) -> str | None:
        """End the open episode after the model call (or the loop) raised `exc`: as
        infra_error with the cause when the provider or the connection failed, else as
        agent_error (TaurecEnv.end_on_error). The end reason; None with no episode open."""
        return self.taurec.end_on_error(exc)

    def close(self) -> None:
        self.taurec.close()
        super().close()


def _options(options: dict[str, Any] | None) -> tuple[str | None, int | None]:
    options = {} if options is None else options
    if not isinstance(options, Mapping):
        raise TypeError(f"options: expected a dict with task_id and/or trial, got {options!r}")
    unknown = sorted(str(key) for key in options if key not in OPTIONS)
    if unknown:
        raise ValueError(f"options: unknown {', '.join(unknown)}; expected task_id and/or trial")
    task_id, trial = options.get("task_id"), options.get("trial")
    if task_id is not None and not isinstance(task_id, str):
        raise TypeError(f"options['task_id']: expected a task id (str), got {task_id!r}")
    if trial is not None and (not isinstance(trial, int) or isinstance(trial, bool) or trial < 0):
        raise ValueError(f"options['trial']: expected a whole number of at least 0, got {trial!r}")
    return task_id, trial


def _action(action: Any) -> tuple[Any, dict[str, Any] | None]:
    """(what TaurecEnv.step takes, the assistant message beside it)."""
    if isinstance(action, Mapping) and "role" in action:
        if action.get("role") != "assistant":
            raise ValueError(
                f"action: a message must be the assistant's, got role {action['role']!r}"
            )
        return str(action.get("content") or ""), dict(action)
    if isinstance(action, str | Mapping | list | tuple):
        return action, None
    raise TypeError(
        "action: expected the model's text (str), a tool call dict "
        '{"name": ..., "arguments": {...}}, a list of them, or an assistant message; '
        f"got {type(action).__name__}"
    )


def _results(result: StepResult) -> list[dict[str, Any]]:
    return [
        {"name": r["name"], "is_error": bool(r["is_error"]), "data": copy.deepcopy(r["data"])}
        for r in result.info.get("results", [])
    ]


def observation_of(text: str) -> str:
    """`text` as an observation: in the charset, and cut to MAX_OBSERVATION."""
    if len(text) > MAX_OBSERVATION:
        text = text[: MAX_OBSERVATION - len(_CUT)] + _CUT
    return in_charset(text)


def register() -> None:
    """Register ENV_IDS with Gymnasium (done on import; again is a no-op)."""
    for env_id, suite in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=f"{__name__}:TaurecGymEnv", kwargs={"suite": suite})


register()
