"""The agents `taurec run` plays on stream suites (BIEL), registered for the kind.

Each is a `StreamPolicy` (baselines.py, learner.py, probe.py, oracle.py, llm.py) driven
through the MCP tools by `play_stream`: it reads the current episode (current_episode),
then asks, recommends and moves on until the stream is complete. One's own policy
(api.py) is played the same way (contestants/custom.py wraps it in a StreamAgent).
Profiles are per stream of 10 episodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from taurec.clients.agents.base import AgentSettings, Episode
from taurec.clients.agents.registry import (
    AGENT_KINDS,
    AgentEntry,
    AgentProfile,
    AgentUnavailable,
    default_label,
)
from taurec.clients.agents.stream.baselines import (
    CeilingStreamPolicy,
    PopularityStreamPolicy,
    RandomStreamPolicy,
)
from taurec.clients.agents.stream.learner import BayesianStreamLearner
from taurec.clients.agents.stream.play import (
    McpStreamPort,
    StreamCallError,
    StreamPolicy,
    play_stream,
)
from taurec.clients.agents.stream.probe import ProbingStreamPolicy

PolicyFactory = Callable[[Episode], StreamPolicy]


class StreamAgent:
    """Plays one stream per episode with a fresh policy made for it."""

    def __init__(
        self, label: str, make_policy: PolicyFactory, agent_info: dict[str, Any] | None = None
    ) -> None:
        """`agent_info`: kind, model and settings for the log header (LLM policies)."""
        self.label = label
        self._make_policy = make_policy
        self.agent_info = agent_info

    async def run(self, episode: Episode) -> None:
        outcome = await episode.call("current_episode")
        if outcome.is_error:
            raise StreamCallError(f"current_episode: {outcome.text}")
        await play_stream(McpStreamPort(episode), outcome.data, self._make_policy(episode))


def _random(settings: AgentSettings) -> StreamAgent:
    label = settings.label or "random"
    return StreamAgent(
        label, lambda ep: RandomStreamPolicy(settings.seed, ep.task_id, ep.trial, label)
    )


def _popularity(settings: AgentSettings) -> StreamAgent:
    label = settings.label or "popularity"
    return StreamAgent(label, lambda ep: PopularityStreamPolicy(label))


def _ceiling(settings: AgentSettings) -> StreamAgent:
    label = settings.label or "ceiling"
    return StreamAgent(
        label, lambda ep: CeilingStreamPolicy.for_suite(settings.suite, ep.task_id, label)
    )


def _oracle(settings: AgentSettings) -> StreamAgent:
    if not settings.model:
        raise AgentUnavailable(
            "--agent oracle needs --model on stream suites (BIEL's oracle is an LLM; a "
            "litellm model string, e.g. openai/gpt-4o, or mock); --agent ceiling reads the "
            "utilities instead"
        )
    from taurec.clients.agents.stream.baselines import suite_task
    from taurec.clients.agents.stream.llm_client import LLMClient
    from taurec.clients.agents.stream.oracle import LLMOracleStreamPolicy

    label, model = default_label("oracle", settings), settings.model

    def make(ep: Episode) -> StreamPolicy:
        client = LLMClient(
            model, ep, temperature=settings.temperature, reasoning_effort=settings.reasoning_effort
        )
        task = suite_task(settings.suite, ep.task_id)
        return LLMOracleStreamPolicy(
            task, client, f"{settings.seed}:{ep.task_id}:{ep.trial}", label
        )

    return StreamAgent(label, make, _model_info("oracle", settings))


def _learner(settings: AgentSettings) -> StreamAgent:
    label = settings.label or "learner"
    return StreamAgent(
        label, lambda ep: BayesianStreamLearner(settings.seed, ep.task_id, ep.trial, label)
    )


def _probe(settings: AgentSettings) -> StreamAgent:
    label = settings.label or "probe"
    return StreamAgent(label, lambda ep: ProbingStreamPolicy(label))


def _llm(settings: AgentSettings) -> StreamAgent:
    if not settings.model:
        raise AgentUnavailable(
            "--agent llm needs --model (a litellm model string, e.g. openai/gpt-4o)"
        )
    from taurec.clients.agents.stream.llm import LLMStreamPolicy, StreamLLMOptions

    options = StreamLLMOptions.from_options(settings.options)
    label = default_label("llm", settings)
    model, temperature, effort = settings.model, settings.temperature, settings.reasoning_effort
    return StreamAgent(
        label,
        lambda ep: LLMStreamPolicy(
            model,
            ep,
            label=label,
            temperature=temperature,
            reasoning_effort=effort,
            options=options,
        ),
        _model_info("llm", settings, context=options.context, planning=options.planning),
    )


def _model_info(kind: str, settings: AgentSettings, **options: Any) -> dict[str, Any]:
    """An LLM policy's kind, model and settings, as the log header records them."""
    chosen = {"temperature": settings.temperature, "reasoning_effort": settings.reasoning_effort}
    return {"kind": kind, "model": settings.model, "settings": {**chosen, **options}}


STREAM_AGENTS: Final = {
    "random": AgentEntry(
        AgentProfile("a uniformly random item of each choice set (seeded)", 21, 0), _random
    ),
    "popularity": AgentEntry(
        AgentProfile("the highest-rated item of each choice set", 21, 0), _popularity
    ),
    "ceiling": AgentEntry(
        AgentProfile("reads the utilities; regret 0 (the ceiling)", 21, 0, task_order=True),
        _ceiling,
    ),
    "oracle": AgentEntry(
        AgentProfile(
            "BIEL's oracle: an LLM that reads the persona and every product",
            21,
            0,
            10,
            needs_model=True,
            task_order=True,
        ),
        _oracle,
    ),
    "learner": AgentEntry(
        AgentProfile(
            "a Bayesian model of utility over item attributes, learned from feedback", 21, 0
        ),
        _learner,
    ),
    "probe": AgentEntry(
        AgentProfile(
            "asks about items one by one, takes the warmest answer (a leak check)", 120, 0
        ),
        _probe,
    ),
    "llm": AgentEntry(
        AgentProfile(
            "a litellm model asking and recommending, BIEL's prompt",
            40,
            0,
            40,
            needs_model=True,
            accepts=("context", "planning", "planning_interval", "confidence"),
        ),
        _llm,
    ),
}
AGENT_KINDS.register("stream")(STREAM_AGENTS)
