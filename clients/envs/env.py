"""`TaurecEnv`: one episode at a time of any task kind, as `reset(task) -> observation`
and `step(action) -> (observation, reward, done, info)`.

    env = TaurecEnv("ranking:builtin")                 # or "builtin", "stream:builtin"
    obs = env.reset(env.task_ids[0])
    obs, reward, done, info = env.step({"name": "get_user_profile", "arguments": {}})
    obs, reward, done, info = env.step('<answer>\\boxed{[3, 1, 2, ...]}</answer>')
    info["score"].metrics, info["log"]                 # the evaluator's score, the log

An action is a tool call `{"name": ..., "arguments": {...}}`, a list of them (the calls of
one model response, logged as one batch), or the model's text (parsed by
`actions.action_of`: tool calls in OpenAI or Hermes form, a ranking's boxed answer, or,
in a dialogue, a message to the user). A reply that cannot be read is itself an action:
the observation says why, and a ranking answer that cannot be read is submitted empty
(scored -1, as AgenticRec scores an invalid answer).

The reward is 0 until the step that ends the episode; there it is the `reward` of the
evaluator's score of the episode's log (`evaluator score`'s own figure), with the whole
EpisodeScore in `info["score"]`. An episode still open after `max_steps` actions is
ended as `agent_error` and scored, with `info["truncated"]` set. When the loop driving
the episode fails, `end_on_error(exc)` ends it as `infra_error` with the cause if the
model's provider or the connection to it failed (an outage), else as `agent_error`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import orjson

from taurec.catalog.errors import DataError
from taurec.clients.agents.base import AGENT_META_KEY, Episode, outcome_of
from taurec.clients.agents.outages import outage_cause, outage_detail, said
from taurec.clients.agents.tool_schema import HARNESS_TOOLS, function_tools
from taurec.clients.envs.actions import Calls, Say, Unreadable, action_of
from taurec.clients.envs.host import EnvHost, log_has_ended
from taurec.evaluator.episode import EpisodeScore
from taurec.tasks.suite import Suite

#: Actions an episode may take before the environment ends it (agent_error).
MAX_STEPS = 64


@dataclass
class StepResult:
    observation: str
    reward: float
    done: bool
    info: dict[str, Any] = field(default_factory=dict)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.observation, self.reward, self.done, self.info))


def opening_of(started: dict[str, Any]) -> str:
    """The first observation: the opening, and a stream's first episode (its choice set)."""
    opening = str(started.get("opening", ""))
    current = started.get("current")
    if current is None:
        return opening
    return f"{opening}\n\n{orjson.dumps(current).decode()}"


class TaurecEnv:
    """One episode at a time on `host` (an EnvHost, or a suite spec to build one with
    `settings`). Not thread-safe; several envs may share one host (VectorEnv)."""

    def __init__(
        self,
        host: EnvHost | Suite | str = "builtin",
        *,
        max_steps: int = MAX_STEPS,
        **settings: Any,
    ) -> None:
        self.owns_host = not isinstance(host, EnvHost)
        self.host = host if isinstance(host, EnvHost) else EnvHost(host, **settings)
        self.max_steps = max_steps
        self.episode: Episode | None = None
        self.task: Any = None
        self.log: Path | None = None
        self.steps = 0
        self.done = True
        self.last: StepResult | None = None

    # --- what a trainer reads --------------------------------------------------------

    @property
    def kind(self) -> str:
        return self.host.kind

    @property
    def task_ids(self) -> list[str]:
        return [task.id for task in self.host.suite.tasks]

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The episode tools as OpenAI-style function tools (episode_id left out: the
        environment fills it in), exactly as an LLM contestant is offered them."""
        return function_tools(self.host.tools, exclude=HARNESS_TOOLS | {"start_stream"})

    # --- reset and step ----------------------------------------------------------------

    def reset(
        self,
        task: str | Any | None = None,
        *,
        trial: int | None = None,
        seed: int | None = None,
        agent: dict[str, Any] | None = None,
    ) -> str:
        """Start an episode of `task` (an id or a task of the suite; None: the first) and
        return its opening observation. An episode still open is ended first. `agent`
        names the model in the log header: {"model": ..., "settings": {...}}."""
        return self.host.call(self.areset, task, trial, seed, agent)

    def log_model_call(self, *, model: str, messages: Any, **fields: Any) -> None:
        """Log one model call of the open episode (Episode.log_model_call's fields:
        `output`, `usage`, `settings`, `tools`, `latency_ms`, ...); it goes with the next
        step's first tool call, as a `model_call` event logged before it."""
        if self.episode is None or self.done:
            raise RuntimeError("no episode is open: call reset(task) first")
        self.episode.log_model_call(model=model, messages=messages, **fields)

    def step(self, action: Any, message: dict[str, Any] | None = None) -> StepResult:
        """Take one action (see the module doc); `message` is the OpenAI-style assistant
        message when the model's tool calls came apart from its text."""
        return self.host.call(self.astep, action, message)

    def close(self) -> None:
        if self.owns_host:
            self.host.close()
        elif self.episode is not None and not self.done:
            self.host.call(self._abort, "the environment closed before the episode ended")

    def end_on_error(self, exc: BaseException) -> str | None:
        """End the open episode after `exc` stopped the loop that drives it (a model call
        that raised, say): as infra_error naming the cause when `exc` is an outage
        (agents/outages.py), else as agent_error naming `exc`. The reason it ended with;
        None when no episode was open."""
        if self.episode is None or self.done:
            return None
        cause = outage_cause(exc)
        if cause is not None:
            self.host.call(self._abort, outage_detail(cause), "infra_error")
            return "infra_error"
        self.host.call(self._abort, f"the loop driving the episode stopped: {said(exc)}")
        return "agent_error"

    def __enter__(self) -> TaurecEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the same on the host's event loop ----------------------------------------------

    async def areset(
        self,
        task: str | Any | None = None,
        trial: int | None = None,
        seed: int | None = None,
        agent: dict[str, Any] | None = None,
    ) -> str:
        if self.episode is not None and not self.done:
            await self._abort("the environment was reset before the episode ended")
        self.task = self.host.task(task)
        trial = self.host.next_trial(self.task.id) if trial is None else trial
        arguments: dict[str, Any] = {"task_id": self.task.id, "trial": trial}
        arguments["agent_label"] = self.host.label
        if seed is not None:
            arguments["seed"] = seed
        meta: Any = {AGENT_META_KEY: {"kind": "env", **(agent or {})}}
        started = outcome_of(
            await self.host.client.call_tool("start_episode", arguments, meta=meta)
        )
        if started.is_error:
            raise DataError(f"start_episode failed: {started.text}")
        data = started.data
        self.episode = Episode(
            client=self.host.client,
            episode_id=str(data["episode_id"]),
            task_id=self.task.id,
            opening=str(data.get("opening", "")),
            trial=trial,
            max_turns=int(data.get("max_turns", 0)),
            tools=self.host.tools,
        )
        self.log = self.host.log_of(self.task.id, trial, self.episode.episode_id)
        self.steps, self.done, self.last = 0, False, None
        return opening_of(data)

    async def astep(self, action: Any, message: dict[str, Any] | None = None) -> StepResult:
        if self.episode is None:
            raise RuntimeError("call reset(task) before step()")
        if self.done:
            raise RuntimeError("the episode has ended; call reset(task) to start another")
        self.steps += 1
        parsed = action_of(action, self.kind, self.task, message)
        results: list[dict[str, Any]] = []
        if isinstance(parsed, Unreadable):
            text = f"Error: {parsed.reason}"
        elif isinstance(parsed, Say):
            results.append(await self._call("send_message", {"text": parsed.text}, 1))
            reply = results[0]["data"].get("reply")  # the user's words, as a contestant sees them
            text = str(reply) if isinstance(reply, str) else results[0]["text"]
        else:
            assert isinstance(parsed, Calls)
            self.episode.begin_batch(len(parsed.calls))
            for name, arguments in parsed.calls:
                results.append(await self._call(name, arguments, len(parsed.calls)))
            text = "\n\n".join(r["text"] for r in results)
        info: dict[str, Any] = {"results": results, "action": parsed}
        if not self._ended() and self.steps >= self.max_steps:
            await self._abort(f"the environment's step limit ({self.max_steps}) was reached")
            info["truncated"] = True  # cut by the environment, not ended by the episode
        if self._ended():
            return self._finish(text, info)
        self.last = StepResult(text, 0.0, False, info)
        return self.last

    async def _call(self, name: str, arguments: dict[str, Any], batch: int) -> dict[str, Any]:
        assert self.episode is not None
        if batch == 1:
            self.episode.begin_batch(1)
        outcome = outcome_of(await self.episode.call_raw(name, arguments))
        text = f"Error: {outcome.text}" if outcome.is_error else outcome.text
        return {"name": name, "text": text, "is_error": outcome.is_error, "data": outcome.data}

    async def _abort(self, detail: str, reason: str = "agent_error") -> None:
        assert self.episode is not None
        arguments = {"reason": reason, "detail": detail[:2000]}
        with anyio.CancelScope(shield=True):
            await self.host.client.call_tool(
                "abort_episode", {"episode_id": self.episode.episode_id, **arguments}
            )
        self.done = True

    def _ended(self) -> bool:
        return self.log is not None and log_has_ended(self.log)

    def _finish(self, text: str, info: dict[str, Any]) -> StepResult:
        assert self.log is not None
        self.done = True
        score: EpisodeScore = self.host.score(self.log)
        info.update(score=score, log=self.log, passed=score.passed, metrics=dict(score.metrics))
        info["end_reason"] = score.end_reason
        self.last = StepResult(text, float(score.reward), True, info)
        return self.last
