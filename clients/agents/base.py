"""The agent interface: what an agent drives (an Episode) and what an agent is (Agent).

An agent is any object with a `label` and an `async run(episode)`. The runner starts an
episode on the MCP server (in process, stdio or HTTP), wraps that client session in an
`Episode`, and calls `run`. Everything goes through the server's public MCP tools, so a
reference agent here is no better informed than an external one.

    class EchoAgent:
        label = "echo"

        async def run(self, episode: Episode) -> None:
            turn = await episode.say("What kind of film are you after?")
            hits = await episode.call("search_catalog", query=turn.text, limit=1)
            items = hits.content["items"] if not hits.is_error else []
            await episode.recommend(items[0]["id"] if items else None)

An agent that raises, or returns without committing (leaving the episode open), has its
episode ended by the runner as `agent_error`, a raised exception's traceback kept in the
log's end record (docs/agents.md). An LLM agent whose provider keeps failing raises AgentInfraError;
the runner ends the episode as `infra_error` (reported apart, never silently dropped); one
whose provider refuses its key or model raises ProviderRefused and the run stops.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

from mcp import Client
from mcp_types import CallToolResult, Tool

from taurec.clients.agents.model_calls import ModelCallOutbox

#: The request `_meta` key that carries an episode's cumulative LLM usage to the server.
USAGE_META_KEY: Final = "taurec/usage"
#: The request `_meta` key for text the agent wrote alongside a call but did not send.
ASIDE_META_KEY: Final = "taurec/aside"
#: The request `_meta` key naming the model response (batch) a call came in.
BATCH_META_KEY: Final = "taurec/batch"
#: The request `_meta` key carrying the model calls made since the last call (model_calls.py).
MODEL_CALLS_META_KEY: Final = "taurec/model_calls"
#: The start_episode `_meta` key naming the agent's kind, model and settings (the header's).
AGENT_META_KEY: Final = "taurec/agent"
#: The abort_episode `_meta` key carrying the traceback of an agent that raised.
TRACEBACK_META_KEY: Final = "taurec/traceback"


class AgentInfraError(Exception):
    """The agent could not go on for reasons that are not its own (e.g. the LLM provider
    failed after retries). The runner ends the episode as `infra_error`."""


class ProviderRefused(AgentInfraError):
    """The LLM provider refused the credentials, the permission or the model (never
    retried): every other episode would fail alike, so the runner stops the run."""


class EpisodeEndedError(RuntimeError):
    """A tool was called on an episode that has already ended."""


@dataclass(frozen=True)
class UserTurn:
    """The user's reply to one message."""

    text: str
    left: bool = False  # the user ended the conversation
    turns_left: int = 0  # messages the agent may still send
    ended: bool = False  # the episode is over (user left or turn budget spent)
    #: the item the user accepted, as it decided it (a harness's server only: see
    #: ServerSettings.report_acceptance)
    accepted: str | None = None


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call returned: `content` is the structured result (a dict) or, for an
    error or a text-only result, its text; `text` is always the text form."""

    content: dict[str, Any] | str
    is_error: bool
    text: str

    @property
    def data(self) -> dict[str, Any]:
        """The structured result; {} for an error or a text-only result."""
        return self.content if isinstance(self.content, dict) else {}


@dataclass
class Usage:
    """Cumulative LLM usage of one episode, as the agent reports it."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def as_meta(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
        }


def outcome_of(result: CallToolResult) -> ToolOutcome:
    """A CallToolResult as a ToolOutcome."""
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    structured = result.structured_content
    if result.is_error or structured is None:
        return ToolOutcome(content=text, is_error=bool(result.is_error), text=text)
    return ToolOutcome(
        content=dict(structured), is_error=False, text=text or json.dumps(structured)
    )


@dataclass
class Episode:
    """One started episode on one MCP client session. Agents call `say`, `call` and
    `recommend`; every call carries the episode id and the usage reported so far."""

    client: Client
    episode_id: str
    task_id: str
    opening: str  # the user's first message
    trial: int = 0
    max_turns: int = 0
    tools: list[Tool] = field(default_factory=list)  # the server's tools, for LLM agents
    ended: bool = False
    end_reason: str | None = None
    turns_left: int = 0
    usage: Usage | None = None
    pending_aside: str | None = None  # goes out with the next call, then is cleared
    model_calls: ModelCallOutbox = field(default_factory=ModelCallOutbox, repr=False)
    _batch: dict[str, Any] | None = field(default=None, init=False, repr=False)
    _batch_sent: int = field(default=0, init=False, repr=False)
    _batches: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.turns_left:
            self.turns_left = self.max_turns

    async def say(self, text: str) -> UserTurn:
        """send_message: say `text` to the user; their reply. Raises EpisodeEndedError
        after the end, and ValueError when the server refuses the message."""
        outcome = await self.call("send_message", text=text)
        if outcome.is_error:
            raise ValueError(outcome.text)
        data = outcome.data
        self.turns_left = int(data.get("turns_left", 0))
        return UserTurn(
            text=str(data.get("reply", "")),
            left=bool(data.get("user_left")),
            turns_left=self.turns_left,
            ended=bool(data.get("episode_ended")),
            accepted=data.get("accepted") if isinstance(data.get("accepted"), str) else None,
        )

    async def call(self, tool: str, **arguments: Any) -> ToolOutcome:
        """Call any episode tool (`episode_id` is added). Tool errors come back as a
        ToolOutcome with is_error, never raised."""
        return outcome_of(await self.call_raw(tool, arguments))

    async def call_raw(
        self, tool: str, arguments: dict[str, Any], meta: Mapping[str, Any] | None = None
    ) -> CallToolResult:
        """`call`, returning the server's CallToolResult as it is (for relaying it, e.g. to
        an agent that speaks MCP itself). `episode_id` is set to this episode's; `meta`
        adds request `_meta` keys (e.g. TRACEBACK_META_KEY)."""
        in_batch = self._batch is not None and self._batch_sent < self._batch["size"]
        if self.ended and not in_batch:
            raise EpisodeEndedError(
                f"episode {self.episode_id[:8]} has ended ({self.end_reason}); {tool} not sent"
            )
        if not in_batch:
            self.begin_batch(1)
        assert self._batch is not None
        self._batch_sent += 1
        sent: dict[str, Any] = {**(meta or {}), BATCH_META_KEY: self._batch}
        if self.usage is not None:
            sent[USAGE_META_KEY] = self.usage.as_meta()
        if self.pending_aside:
            sent[ASIDE_META_KEY], self.pending_aside = self.pending_aside, None
        if (calls := self.model_calls.take()) is not None:
            sent[MODEL_CALLS_META_KEY] = calls
        result = await self.client.call_tool(
            tool,
            {
                "episode_id": self.episode_id,
                **{k: v for k, v in arguments.items() if k != "episode_id"},
            },
            meta=sent,  # type: ignore[arg-type]  # RequestParamsMeta takes extra keys
        )
        outcome = outcome_of(result)
        data = outcome.data
        if data.get("episode_ended"):
            self.ended = True
            self.end_reason = data.get("end_reason")
        elif outcome.is_error and "has ended (" in outcome.text:
            self.ended = True
            self.end_reason = outcome.text.split("has ended (", 1)[1].split(")", 1)[0]
        return result

    async def recommend(
        self, item_id: str | None, message: str | None = None, disclose: list[str] | None = None
    ) -> ToolOutcome:
        """Commit `item_id` (None abstains), optionally with a message to the user and what
        it discloses about the item (`["sponsored"]`: policies/sponsorship.py)."""
        arguments: dict[str, Any] = {"item_id": item_id}
        if message is not None:
            arguments["message"] = message
        if disclose is not None:
            arguments["disclose"] = disclose
        return await self.call("recommend", **arguments)

    def begin_batch(self, size: int) -> None:
        """The next `size` calls are the tool calls of one model response. Each carries the
        response's batch id (request `_meta` `"taurec/batch"`, with `size`), and all are
        sent even after one of them ended the episode: the server logs them as refused, so
        the log shows the whole response (τ-Rec's orchestrator runs every call of one).
        A call outside a batch is a batch of its own."""
        if size < 1:
            raise ValueError(f"a batch holds at least one call, got size {size}")
        self._batches += 1
        self._batch, self._batch_sent = {"id": f"b{self._batches}", "size": size}, 0

    def note_aside(self, text: str) -> None:
        """Text the agent wrote but did not send to the user (say, alongside tool calls):
        it travels with the next call and is logged as an undelivered agent message, which
        the policy checks do not count (the user never saw it)."""
        self.pending_aside = f"{self.pending_aside}\n{text}" if self.pending_aside else text

    def log_model_call(
        self, *, model: str, messages: Sequence[Mapping[str, Any]], **fields: Any
    ) -> None:
        """Log one model call: `model`, the `messages` sent, and any of `output` (the reply
        message), `usage` ({prompt_tokens, completion_tokens, cost_usd}), `settings`
        (temperature, max_tokens, seed, ...), `tools` (the definitions offered),
        `latency_ms`, `cache_hit`, `error`, `purpose`. It goes to the server with the
        next call and is logged before it (a `model_call` event; docs/agents.md)."""
        self.model_calls.add(model=model, messages=messages, **fields)

    def add_usage(
        self, prompt_tokens: int, completion_tokens: int, cost_usd: float | None = None
    ) -> None:
        """Add one LLM call's usage; the total reaches the log's end record."""
        usage = self.usage or Usage()
        usage.prompt_tokens += prompt_tokens
        usage.completion_tokens += completion_tokens
        if cost_usd is not None:
            usage.cost_usd = (usage.cost_usd or 0.0) + cost_usd
        self.usage = usage


@dataclass(frozen=True)
class AgentSettings:
    """What `taurec run` tells an agent factory (see registry.py). Factories ignore what
    they do not use; `make_llm_agent(settings)` requires `model`."""

    label: str | None = None  # the label to report under; None: the agent's default
    seed: int = 0  # seeds any randomness of the agent (combined with task and trial)
    suite: str = "builtin"  # the suite being run (the oracle reads its answer key)
    model: str | None = None  # LLM agents: a litellm model string
    temperature: float | None = None
    reasoning_effort: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # agent-specific extras


@runtime_checkable
class Agent(Protocol):
    """A contestant. `label` names it in logs and reports (e.g. "scripted", "gpt-x@t0")."""

    label: str

    async def run(self, episode: Episode) -> None:
        """Play one episode to its end (normally by calling episode.recommend)."""
        ...
