"""The verifiers environment whose rollouts are taurec episodes (built by
`verifiers_env.load_environment`).

A rollout, in verifiers' MultiTurnEnv loop:
- `setup_state` starts the episode of the row's task on a TaurecEnv over the shared host
  and makes its opening the prompt's user message (after the server's contestant prompt
  when it has one and no system prompt was given);
- `env_response` takes the model's reply as one `env.step(text, message=...)` (OpenAI
  tool calls read from the message, Hermes calls or a ranking's boxed answer from the
  text) and answers with one tool message per tool call, or a user message (the
  simulated user's reply, or what became of a reply without a call). When the step ends
  the episode, that answer is the rollout's last message;
- the `end_taurec_episode` cleanup ends an episode verifiers stopped first (its turn or
  token limit, a timeout, an error) as agent_error, after taking the model's last reply
  when it was never stepped (not after a timeout or an error), and scores it; when the
  error was an outage (the model's provider or the connection to it failed:
  agents/outages.py), as infra_error with its cause.

Each model call the rollout made is logged as a `model_call` event (the messages sent,
the reply, its tokens) with the step it led to, and the log header names the model.

The state's `taurec` record (also the rollout's `info["taurec"]`): task_id, trial, log,
steps, and once scored reward, passed, end_reason and metrics.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import verifiers as vf

from taurec.clients.agents.llm import system_prompt
from taurec.clients.envs.env import StepResult, TaurecEnv
from taurec.clients.envs.host import EnvHost
from taurec.evaluator.episode import EpisodeScore

#: The MCP prompt a server offers to describe the protocol and policy to a contestant.
CONTESTANT = "contestant"


class TaurecVerifiersEnv(vf.MultiTurnEnv):
    """Rollouts of taurec episodes on `host` (closed with the environment), each at most
    `max_steps` model replies; `server_prompt`: begin with the server's contestant prompt
    when a row's prompt has no system message."""

    def __init__(
        self, host: EnvHost, *, max_steps: int, server_prompt: bool = True, **kwargs: Any
    ) -> None:
        self.host = host
        self.max_steps = max_steps
        self.server_prompt = server_prompt
        super().__init__(**kwargs)

    def close(self) -> None:
        """Close the server (ending any open episode) and remove its temporary logs."""
        self.host.close()

    @vf.teardown
    async def close_host(self) -> None:
        # called at exit too, when no thread can be started: close in this one
        self.host.close()

    async def setup_state(self, state: vf.State) -> vf.State:
        env = TaurecEnv(self.host, max_steps=self.max_steps)
        state["taurec_env"] = env
        info = state.get("info")
        task_id = info.get("task_id") if isinstance(info, Mapping) else None
        if not isinstance(task_id, str):
            raise vf.InfraError(f"taurec: the row's info has no task_id (got {info!r})")
        agent = {"kind": "verifiers", "model": state.get("model")}  # the header names it
        try:
            opening = await asyncio.to_thread(env.reset, task_id, agent=agent)
        except Exception as exc:
            raise vf.InfraError(f"taurec: task {task_id!r} did not start: {exc}") from exc
        assert env.episode is not None and env.log is not None
        record = {"task_id": task_id, "trial": env.episode.trial, "log": str(env.log), "steps": 0}
        state["taurec"] = record
        state["info"]["taurec"] = record
        try:
            before = await self._before_opening(state, env)
        except Exception as exc:
            raise vf.InfraError(f"taurec: no contestant prompt for {task_id!r}: {exc}") from exc
        state["prompt"] = [*before, vf.UserMessage(content=opening)]
        return state

    async def _before_opening(self, state: vf.State, env: TaurecEnv) -> list[Any]:
        """The row's messages before its stand-in user message, led by the server's
        contestant prompt when they hold no system message."""
        before = list(state["prompt"])[:-1]
        if not self.server_prompt or any(_role(m) == "system" for m in before):
            return before
        text = await asyncio.to_thread(self.host.call, contestant_prompt, env)
        return [vf.SystemMessage(content=text), *before] if text else before

    async def env_response(
        self, messages: vf.Messages, state: vf.State, **kwargs: Any
    ) -> vf.Messages:
        reply = messages[-1]
        result = await self._step(state["taurec_env"], state, reply)
        answer = observation_messages(reply, result)
        if result.done:
            state["final_env_response"] = answer
        return answer

    async def _step(self, env: TaurecEnv, state: vf.State, reply: Any) -> StepResult:
        text, message = reply_action(reply)
        record = state["taurec"]
        log_completion(env, state, message)
        try:
            result = await asyncio.to_thread(env.step, text, message)
        except Exception as exc:
            step = record["steps"] + 1
            raise vf.InfraError(f"taurec: step {step} of {record['log']} failed: {exc}") from exc
        record["steps"] += 1
        if result.done:
            scored(state, result.info["score"])
        return result

    @vf.cleanup
    async def end_taurec_episode(self, state: vf.State) -> None:
        env: TaurecEnv | None = state.pop("taurec_env", None)
        if env is None or env.episode is None or env.done:
            return
        try:
            reply = unstepped_reply(state)
            if reply is not None:
                result = await self._step(env, state, reply)
                if result.done:
                    state["final_env_response"] = observation_messages(reply, result)
                    await self.render_completion(state)
            if not env.done:  # an outage: infra_error with its cause; else agent_error
                error = state.get("error")
                if isinstance(error, BaseException):
                    await asyncio.to_thread(env.end_on_error, error)
                else:
                    await asyncio.to_thread(env.close)
                assert env.log is not None
                scored(state, await asyncio.to_thread(self.host.score, env.log))
        except Exception as exc:
            failed = exc if isinstance(exc, vf.Error) else vf.InfraError(f"taurec: {exc}")
            state["error"] = state.get("error") or failed


async def contestant_prompt(env: TaurecEnv) -> str | None:
    """What the LLM contestant is told before the opening (the server's contestant
    prompt and the harness note), when the server offers that prompt; else None."""
    listed = await env.host.client.list_prompts()
    if CONTESTANT not in {p.name for p in listed.prompts}:
        return None
    assert env.episode is not None
    return await system_prompt(env.episode)


def log_completion(env: TaurecEnv, state: vf.State, reply: dict[str, Any]) -> None:
    """Log the model call that produced `reply` (the rollout's last step: the messages it
    was sent, its usage) as a `model_call` event before the step's first tool call."""
    trajectory = state.get("trajectory") or []
    if len(trajectory) <= state["taurec"]["steps"]:
        return  # no model call of its own (already logged, or none was made)
    step = trajectory[-1]
    usage = getattr(step.get("response"), "usage", None)
    fields: dict[str, Any] = {"output": reply}
    if usage is not None:
        fields["usage"] = {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
        }
    messages = [_plain(m) for m in step.get("prompt") or []]
    env.log_model_call(model=str(state.get("model") or "unknown"), messages=messages, **fields)


def _plain(message: Any) -> dict[str, Any]:
    """A verifiers message (a pydantic model or a dict) as a plain role/content dict."""
    dumped = message.model_dump(exclude_none=True) if hasattr(message, "model_dump") else message
    return dict(dumped) if isinstance(dumped, Mapping) else {"content": str(dumped)}


def scored(state: vf.State, score: EpisodeScore) -> None:
    """Record the evaluator's score of the episode in the state's taurec record."""
    state["taurec"].update(
        reward=float(score.reward),
        passed=bool(score.passed),
        end_reason=score.end_reason,
        metrics=dict(score.metrics),
    )


def unstepped_reply(state: vf.State) -> Any | None:
    """The model's last reply when the rollout stopped before the episode took it (its
    turn or token limit); None after a timeout or an error, or when there is none."""
    trajectory = state.get("trajectory") or []
    if state.get("error") is not None or state.get("timed_out"):
        return None
    if len(trajectory) <= state["taurec"]["steps"]:
        return None
    completion = trajectory[-1]["completion"] or []
    last = completion[-1] if completion else None
    return last if _role(last) == "assistant" else None


def reply_action(reply: Any) -> tuple[str, dict[str, Any]]:
    """A verifiers assistant message as TaurecEnv's action: its text, and the
    OpenAI-style message its tool calls are read from."""
    text = content_text(getattr(reply, "content", None))
    message: dict[str, Any] = {"role": "assistant", "content": text}
    calls = getattr(reply, "tool_calls", None) or []
    if calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in calls
        ]
    return text, message


def observation_messages(reply: Any, result: StepResult) -> list[Any]:
    """The environment's answer to `reply`: one tool message per tool call (each its
    call's result; all the step's observation when the calls were not taken one by one,
    e.g. unreadable), else one user message."""
    calls = getattr(reply, "tool_calls", None) or []
    if not calls:
        return [vf.UserMessage(content=result.observation)]
    texts = [str(r["text"]) for r in result.info.get("results", [])]
    if len(texts) != len(calls):
        texts = [result.observation] * len(calls)
    return [
        vf.ToolMessage(tool_call_id=call.id, content=text)
        for call, text in zip(calls, texts, strict=True)
    ]


def content_text(content: Any) -> str:
    """The text of a message's content (a string, None, or a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else getattr(part, "type", None)
        text = part.get("text") if isinstance(part, Mapping) else getattr(part, "text", None)
        if kind == "text" and isinstance(text, str):
            parts.append(text)
    return "\n".join(parts)


def _role(message: Any) -> str | None:
    if isinstance(message, Mapping):
        return message.get("role")
    return getattr(message, "role", None)
