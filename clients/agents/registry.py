"""The agents `taurec run --agent NAME` knows for each task kind, how to make them, and
what an episode of each costs (for `--dry-run`).

Each kind registers its agents with `AGENT_KINDS.register(kind)` (a name -> AgentEntry
map); this module holds the "recommendation" kind's.

The LLM agent lives in llm.py (`make_llm_agent(settings)`); it is imported only when
asked for, so everything else works without it or its dependencies.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from taurec.clients.agents.base import Agent, AgentSettings
from taurec.tasks.kinds import DEFAULT_KIND, KindRegistry, UnknownKind


class AgentUnavailable(ValueError):
    """The agent cannot be made with these settings (message says why and what to do)."""


@dataclass(frozen=True)
class AgentProfile:
    """Typical cost of one episode (measured on the built-in suite with the rule user)."""

    description: str
    tool_calls: float  # episode tool calls, messages excluded
    messages: float  # send_message calls (each one a simulated-user turn)
    llm_calls: float = 0.0  # model calls of the agent itself
    needs_model: bool = False
    #: AgentSettings.options keys the agent requires (each a `taurec run` option, e.g.
    #: "crs_url" for --crs-url); the run refuses them for any other agent.
    requires: tuple[str, ...] = ()
    #: AgentSettings.options keys the agent may take (e.g. "context" for --context).
    accepts: tuple[str, ...] = ()
    #: Reads the suite's task episodes in their order (a stream ceiling or oracle): not
    #: with --shuffle-order, which plays them in another.
    task_order: bool = False


PROFILES: Final[dict[str, AgentProfile]] = {
    "scripted": AgentProfile("asks about every attribute, filters, pitches one at a time", 13, 8),
    "oracle": AgentProfile("reads the answer key; the ceiling of a suite", 5, 0),
    "random": AgentProfile("a random catalog title (seeded)", 7, 0),
    "popularity": AgentProfile("the most-voted title of the volunteered genre", 5, 0),
    "llm": AgentProfile("a litellm tool-calling agent over MCP", 12, 8, 21, needs_model=True),
    # measured with the reference CRS (taurec crs-demo)
    "crs": AgentProfile(
        "a text-only CRS over HTTP (iEvaLM protocol)",
        0.85,
        2.75,
        requires=("crs_url",),
        accepts=("crs_dialogue",),
    ),
    # measured with the reference A2A agent (taurec a2a-demo: the scripted policy)
    "a2a": AgentProfile(
        "an Agent2Agent-protocol agent using the MCP tools", 13, 8, requires=("a2a_url",)
    ),
}
AGENT_NAMES: Final = tuple(PROFILES)


def _scripted(settings: AgentSettings) -> Agent:
    from taurec.clients.agents.recommendation.scripted import ScriptedAgent

    return ScriptedAgent(settings.label or "scripted")


def _oracle(settings: AgentSettings) -> Agent:
    from taurec.clients.agents.recommendation.oracle import make_oracle

    return make_oracle(settings)


def _random(settings: AgentSettings) -> Agent:
    from taurec.clients.agents.recommendation.baselines import make_random

    return make_random(settings)


def _popularity(settings: AgentSettings) -> Agent:
    from taurec.clients.agents.recommendation.baselines import make_popularity

    return make_popularity(settings)


def _llm(settings: AgentSettings) -> Agent:
    if not settings.model:
        raise AgentUnavailable(
            "--agent llm needs --model (a litellm model string, e.g. openai/gpt-4o)"
        )
    try:
        module = importlib.import_module(f"{__package__}.llm")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.llm":
            raise AgentUnavailable(f"the llm agent cannot be loaded: {exc}") from None
        raise AgentUnavailable(
            "the llm agent is not available in this installation "
            "(taurec/clients/agents/llm.py is missing)"
        ) from None
    factory: Callable[[AgentSettings], Agent] = module.make_llm_agent
    return factory(settings)


def _required(settings: AgentSettings, option: str, agent: str) -> None:
    if not settings.options.get(option):
        flag = "--" + option.replace("_", "-")
        raise AgentUnavailable(f"--agent {agent} needs {flag} (the agent's base URL)")


def _crs(settings: AgentSettings) -> Agent:
    _required(settings, "crs_url", "crs")
    from taurec.clients.agents.contestants.crs import CrsError, make_crs_agent

    try:
        return make_crs_agent(settings)
    except CrsError as exc:
        raise AgentUnavailable(str(exc)) from None


def _a2a(settings: AgentSettings) -> Agent:
    _required(settings, "a2a_url", "a2a")
    try:
        from taurec.clients.agents.contestants.a2a import A2AUnavailable, make_a2a_agent
    except ImportError as exc:
        raise AgentUnavailable(
            f"--agent a2a needs the a2a extra (pip install 'taurec[a2a]'): {exc}"
        ) from None
    try:
        return make_a2a_agent(settings)
    except A2AUnavailable as exc:
        raise AgentUnavailable(str(exc)) from None


_FACTORIES: Final[dict[str, Callable[[AgentSettings], Agent]]] = {
    "scripted": _scripted,
    "oracle": _oracle,
    "random": _random,
    "popularity": _popularity,
    "llm": _llm,
    "crs": _crs,
    "a2a": _a2a,
}


@dataclass(frozen=True)
class AgentEntry:
    profile: AgentProfile
    make: Callable[[AgentSettings], Agent]


AGENT_KINDS: KindRegistry[dict[str, AgentEntry]] = KindRegistry(
    "agents",
    (
        "taurec.clients.agents.registry",
        "taurec.clients.agents.ranking.agents",
        "taurec.clients.agents.ranking.ppr",
        "taurec.clients.agents.stream.agents",
    ),
)
AGENT_KINDS.register(DEFAULT_KIND)(
    {name: AgentEntry(PROFILES[name], factory) for name, factory in _FACTORIES.items()}
)


def agents_of(kind: str) -> dict[str, AgentEntry]:
    """The agents of a task kind; AgentUnavailable for a kind without agents."""
    try:
        return AGENT_KINDS.get(kind)
    except UnknownKind as exc:
        raise AgentUnavailable(str(exc)) from None


def make_agent(name: str, settings: AgentSettings, kind: str = DEFAULT_KIND) -> Agent:
    """The agent called `name` for tasks of `kind`; AgentUnavailable when it cannot be made
    (unknown name, missing model, missing module). An agent that reports no identity of
    its own gets `identity_of(name, settings)` for its log headers (`agent_info`)."""
    entry = agents_of(kind).get(name)
    if entry is None:
        raise AgentUnavailable(
            f"unknown agent {name!r} for {kind!r} tasks; expected one of "
            f"{', '.join(agents_of(kind))}"
        )
    agent = entry.make(settings)
    if not isinstance(getattr(agent, "agent_info", None), dict):
        with contextlib.suppress(AttributeError):  # slots, a read-only property: it keeps its own
            agent.agent_info = identity_of(name, settings)  # type: ignore[attr-defined]
    return agent


def identity_of(kind: str, settings: AgentSettings) -> dict[str, Any]:
    """Who an agent is, for its log headers: its kind, its model and the settings it plays
    with (sampling, modes), but not its seed or label (the same agent with other
    randomness, or another name, is the same agent)."""
    chosen: dict[str, Any] = {
        "temperature": settings.temperature,
        "reasoning_effort": settings.reasoning_effort,
    }
    chosen |= {k: v for k, v in settings.options.items() if k not in URL_OPTIONS}
    return {
        "kind": kind,
        "model": settings.model,
        "settings": {k: v for k, v in chosen.items() if v is not None},
    }


#: Agent options that say where the agent is, not how it plays: left out of labels.
URL_OPTIONS: Final = frozenset({"crs_url", "a2a_url"})


def default_label(name: str, settings: AgentSettings) -> str:
    """The label an agent reports under when --label is not given (without making it)."""
    if settings.label:
        return settings.label
    label = name
    if settings.model:  # an LLM agent: its model and sampling
        label = settings.model if name == "llm" else f"{name}@{settings.model}"
        if settings.temperature is not None:
            label += f"@t{settings.temperature:g}"
        if settings.reasoning_effort:
            label += f"@{settings.reasoning_effort}"
    for key, value in sorted(settings.options.items()):  # the modes it plays in
        if key not in URL_OPTIONS:
            label += f"+{key}" if value is True else f"+{key}={value}"
    return label
