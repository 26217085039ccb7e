"""The LLM contestant: any litellm model playing one episode through the server's MCP tools.

The model gets the server's `contestant` prompt (protocol and policy) plus a note on how
this harness runs the episode, the user's opening message, and every episode tool as a
function (`tool_schema.py`: `episode_id` hidden and filled in by the Episode; the
harness's own tools not offered). Then it loops, one LLM call per step:

- tool calls are executed on the episode in order, as one batch (`Episode.begin_batch`:
  each carries the reply's batch id, and all are sent even after one ends the episode, so
  the log shows the whole reply); each result (the text the server returned, prefixed
  "Error: " for a tool error) goes back as a tool message;
- a reply with text and no tool call is said to the user (send_message) and the user's
  answer comes back as the next user message. So the model talks to the user either in
  plain text or by calling send_message itself; both use one turn of the budget;
- text written alongside tool calls is not delivered to the user (the model is told
  so); it is logged as an undelivered agent message (`Episode.note_aside`), which the
  default policy checks do not count (under `--rules tau-rec` the text of the reply that
  commits is the agent's last message, as τ-Rec records it);
- a reply with neither text nor tool calls means the model stopped.

It returns when the episode has ended (normally by `recommend`), when the model stops,
or after `max_steps` LLM calls; the runner ends an episode left open as `agent_error`.
Transient provider errors are retried with exponential backoff; when retries run out
(or the provider refuses the credentials or the model) it raises AgentInfraError, which
the runner records as `infra_error`; a refused key or model (authentication, permission)
raises ProviderRefused, which stops the whole run (every other episode would fail alike).
API keys come from the environment only (see .env.example); litellm reads them itself.
The model `mock` (llm_mock.py) plays through litellm's mock replies, without a key.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from mcp import MCPError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taurec.catalog.llm_runtime import load_litellm
from taurec.clients.agents.base import AgentSettings, Episode
from taurec.clients.agents.llm_mock import MOCK_MODEL, is_mock, mock_reply
from taurec.clients.agents.provider_calls import report_call, with_retries
from taurec.clients.agents.tool_schema import HIDDEN_ARGUMENTS, function_tools
from taurec.policies.document import policy_text
from taurec.tasks.trajectory.model_calls import call_settings

log = logging.getLogger(__name__)

#: A litellm-style completion function: takes litellm's keyword arguments, returns a
#: ModelResponse (or an awaitable of one). Default: `litellm.acompletion`.
Completion = Callable[..., Any]
Sleep = Callable[[float], Awaitable[None]]

#: Prefix of a tool message whose call failed.
ERROR_PREFIX: Final = "Error: "
#: Prefix of what the harness (not the user) tells the model in a user message.
HARNESS_PREFIX: Final = "[taurec harness] "

HARNESS_NOTE: Final = """\
## How this harness runs the episode

- The episode has already started (skip start_episode): the user's opening message is
  the first user message below. The episode id is filled in for you; no tool takes it.
- To talk to the user, reply with plain text (it is sent with send_message and the
  user's answer comes back as the next user message), or call send_message yourself.
  Each message uses one turn; {budget}.
- Text you write in the same reply as a tool call is NOT shown to the user. Put what
  the user should read in a message of its own, or in recommend's `message`.
- The episode ends when you call recommend (a catalog item_id, or null to abstain).
"""


class LLMAgentSettings(BaseModel):
    """How an LLM contestant calls its model. Serialises (model_dump) without the
    injection points, so the dump can go into run records as is."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(
        min_length=1, description="Any litellm model string, e.g. 'openai/gpt-4o-mini'."
    )
    temperature: float | None = Field(
        default=0.0,
        ge=0,
        le=2,
        description="Sampling temperature; None leaves it to the provider. Models that take "
        "none get none (litellm drop_params).",
    )
    reasoning_effort: str | None = Field(
        default=None, description="e.g. 'low', 'medium', 'high', for models that reason."
    )
    max_steps: int = Field(default=40, ge=1, description="LLM calls per episode at most.")
    timeout: float = Field(default=120.0, gt=0, description="Seconds one LLM call may take.")
    max_retries: int = Field(
        default=5, ge=0, description="Retries of an LLM call after a transient error."
    )
    backoff: float = Field(
        default=1.0, ge=0, description="Seconds before the first retry; doubled each retry."
    )
    max_backoff: float = Field(default=60.0, ge=0, description="Longest wait between retries.")
    label: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="The agent label in logs and reports; default '<model>@t<temperature>'.",
    )
    litellm_kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="Extra keyword arguments for every litellm call (api_base, top_p, ...); "
        "they override the ones above.",
    )
    completion: Completion | None = Field(
        default=None,
        exclude=True,
        repr=False,
        description="Replaces litellm.acompletion (tests, caching, custom clients).",
    )
    sleep: Sleep | None = Field(
        default=None, exclude=True, repr=False, description="Replaces anyio.sleep (tests)."
    )

    @property
    def agent_label(self) -> str:
        if self.label is not None:
            return self.label
        label = self.model if self.temperature is None else f"{self.model}@t{self.temperature:g}"
        return f"{label}@{self.reasoning_effort}" if self.reasoning_effort else label


class LLMAgent:
    """An Agent (see base.py) backed by one litellm model."""

    def __init__(self, settings: LLMAgentSettings) -> None:
        self.settings = settings
        self.label = settings.agent_label

    def __repr__(self) -> str:
        return f"LLMAgent({self.label!r})"

    async def run(self, episode: Episode) -> None:
        tools = episode.tools or (await episode.client.list_tools()).tools
        offered = function_tools(tools)
        names = frozenset(tool["function"]["name"] for tool in offered)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": await system_prompt(episode)},
            {"role": "user", "content": episode.opening},
        ]
        for _ in range(self.settings.max_steps):
            if episode.ended:
                return
            response = await self._complete(messages, offered)
            self.report(episode, response, messages, offered)
            message = response.choices[0].message
            messages.append(_assistant_message(message))
            text = _text(message)
            calls = list(getattr(message, "tool_calls", None) or [])
            if calls:
                prepared = [_prepare(call, names) for call in calls]
                sent = sum(problem is None for _, _, _, problem in prepared)
                if sent:
                    episode.begin_batch(sent)
                if text:
                    episode.note_aside(text)
                for step in prepared:
                    messages.append(await _run(episode, *step))
                if episode.ended:
                    return
            elif text:
                messages.append(await _deliver(episode, text))
            else:
                log.info("episode %s: the model stopped", episode.episode_id[:8])
                return
        log.info(
            "episode %s: %s steps used without an end",
            episode.episode_id[:8],
            self.settings.max_steps,
        )

    async def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        """One LLM call, retried on transient errors; AgentInfraError when they persist."""
        s = self.settings
        return await with_retries(
            lambda: self._call(messages, tools),
            s.model,
            max_retries=s.max_retries,
            backoff=s.backoff,
            max_backoff=s.max_backoff,
            timeout=s.timeout,
            sleep=s.sleep,
        )

    @property
    def agent_info(self) -> dict[str, Any]:
        """The agent's kind, model and settings, for the log header (`taurec/agent`)."""
        s = self.settings
        settings = {"temperature": s.temperature, "reasoning_effort": s.reasoning_effort}
        settings |= {"max_steps": s.max_steps, **call_settings(s.litellm_kwargs)}
        return {"kind": "llm", "model": s.model, "settings": settings}

    def report(
        self, episode: Episode, response: Any, messages: list[dict[str, Any]], tools: list[Any]
    ) -> None:
        """Add a reply's usage to the episode and log the call that got it."""
        report_call(episode, response, self.settings.model, messages, self._kwargs(messages, tools))

    async def _call(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        kwargs = self._kwargs(messages, tools)
        completion = self.settings.completion
        if completion is None:
            litellm = load_litellm()

            completion = litellm.acompletion
        result = completion(**kwargs)
        return await result if inspect.isawaitable(result) else result

    def _kwargs(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": list(messages),
            "timeout": s.timeout,
            "drop_params": True,  # a model that takes no temperature gets none
        }
        if tools:
            kwargs["tools"] = tools
        if s.temperature is not None:
            kwargs["temperature"] = s.temperature
        if s.reasoning_effort is not None:
            kwargs["reasoning_effort"] = s.reasoning_effort
        if is_mock(s.model):  # litellm answers with the mock's move; no provider, no key
            kwargs.update(model=f"openai/{MOCK_MODEL}", **mock_reply(messages, tools))
        kwargs.update(s.litellm_kwargs)
        return kwargs


def make_llm_agent(settings: LLMAgentSettings | AgentSettings | Mapping[str, Any]) -> LLMAgent:
    """The factory `taurec run --agent llm` calls (registry.py). Takes LLMAgentSettings,
    a mapping of its fields, or the runner's AgentSettings, whose `options` may set any
    other LLMAgentSettings field (max_steps, timeout, litellm_kwargs, ...). Raises
    AgentUnavailable naming the bad field when the settings do not validate."""
    if isinstance(settings, LLMAgentSettings):
        return LLMAgent(settings)
    if isinstance(settings, AgentSettings):
        fields: dict[str, Any] = {
            "model": settings.model,
            "label": settings.label,
            "reasoning_effort": settings.reasoning_effort,
            **settings.options,
        }
        if settings.temperature is not None:  # not given: our default
            fields["temperature"] = settings.temperature
    else:
        fields = dict(settings)
    try:
        return LLMAgent(LLMAgentSettings.model_validate(fields))
    except ValidationError as exc:
        from taurec.clients.agents.registry import AgentUnavailable

        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}" for e in exc.errors()
        )
        raise AgentUnavailable(f"bad llm agent settings: {problems}") from None


async def system_prompt(episode: Episode) -> str:
    """The server's `contestant` prompt (protocol and policy) and the harness note; the
    packaged policy stands in when the server has no such prompt."""
    text = ""
    try:
        prompt = await episode.client.get_prompt("contestant", {"task_id": episode.task_id})
        text = "\n".join(getattr(m.content, "text", "") for m in prompt.messages).strip()
    except MCPError as exc:
        log.info("no contestant prompt from the server (%s); using the packaged policy", exc)
    budget = (
        f"you have {episode.turns_left} messages in all"
        if episode.turns_left
        else "the budget is limited"
    )
    return (text or policy_text()) + "\n\n" + HARNESS_NOTE.format(budget=budget)


def _prepare(
    call: Any, offered: frozenset[str]
) -> tuple[Any, str, dict[str, Any] | None, str | None]:
    """A tool call as (call, name, arguments, problem): a problem means it is not sent."""
    name = str(call.function.name)
    arguments, problem = _arguments(call.function.arguments)
    if name not in offered:
        problem = f"there is no tool {name!r} here; use one of: {', '.join(sorted(offered))}"
    elif arguments is not None:
        for hidden in HIDDEN_ARGUMENTS:
            arguments.pop(hidden, None)  # the episode fills it in
        if "tool" in arguments:  # would collide with Episode.call's own parameter
            problem = f"{name} takes no argument 'tool'"
    if arguments is None and problem is None:
        problem = "no arguments"
    return call, name, arguments, problem


async def _execute(episode: Episode, call: Any, offered: frozenset[str]) -> dict[str, Any]:
    """Run one tool call on the episode; the tool message that answers it."""
    return await _run(episode, *_prepare(call, offered))


async def _run(
    episode: Episode, call: Any, name: str, arguments: dict[str, Any] | None, problem: str | None
) -> dict[str, Any]:
    """Run one prepared tool call on the episode; the tool message that answers it."""
    if problem is not None or arguments is None:
        content = ERROR_PREFIX + (problem or "no arguments")
    else:
        outcome = await episode.call(name, **arguments)
        content = ERROR_PREFIX + outcome.text if outcome.is_error else outcome.text
        if name == "send_message" and "turns_left" in outcome.data:
            episode.turns_left = int(outcome.data["turns_left"])
    return {"role": "tool", "tool_call_id": call.id, "name": name, "content": content}


async def _deliver(episode: Episode, text: str) -> dict[str, Any]:
    """Say the model's plain text to the user; their answer as the next user message."""
    try:
        turn = await episode.say(text)
    except ValueError as exc:  # the server refused the message (e.g. too long)
        return {"role": "user", "content": f"{HARNESS_PREFIX}not delivered: {exc}"}
    return {"role": "user", "content": turn.text}


def _arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """A tool call's arguments as a dict, or the reason they are unusable."""
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, dict):
        return dict(raw), None
    try:
        parsed = json.loads(raw)
    except (TypeError, ValueError) as exc:
        return None, f"the arguments are not valid JSON ({exc}); send a JSON object"
    if not isinstance(parsed, dict):
        return None, f"the arguments must be a JSON object, got {type(parsed).__name__}"
    return parsed, None


def _text(message: Any) -> str:
    content = getattr(message, "content", None)
    return content.strip() if isinstance(content, str) else ""


def _assistant_message(message: Any) -> dict[str, Any]:
    """The model's reply as a history message, keeping provider fields (e.g. thinking
    blocks) that some providers need back on the next call."""
    if hasattr(message, "model_dump"):
        out: dict[str, Any] = message.model_dump(exclude_none=True)
    else:
        out = {"content": getattr(message, "content", None)}
        calls = getattr(message, "tool_calls", None)
        if calls:
            out["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in calls
            ]
    out["role"] = "assistant"
    if out.get("tool_calls") and not out.get("content"):
        out["content"] = None  # some providers reject an empty text part
    return out
