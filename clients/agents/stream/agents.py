"""The agents `taurec run` plays on stream suites (BIEL), registered for the kind.

Each is a `StreamPolicy` (baselines.py, learner.py) driven through the
MCP tools by `play_stream`: it reads the current episode (current_episode), then asks,
recommends and moves on until the stream is complete. Profiles are per stream of 10
episodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from taurec.clients.agents.base import AgentSettings, Episode
from taurec.clients.agents.registry import (
    AGENT_KINDS,
    AgentEntry,
    AgentProfile,
    AgentUnavailable,
    default_label,
)
from taurec.clients.agents.stream.baselines import (
    OracleStreamPolicy,
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

    def __init__(self, label: str, make_policy: PolicyFactory) -> None:
        self.label = label
        self._make_policy = make_policy

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


def _oracle(settings: AgentSettings) -> StreamAgent:
    label = settings.label or "oracle"
    return StreamAgent(
        label, lambda ep: OracleStreamPolicy.for_suite(settings.suite, ep.task_id, label)
    )


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
    from taurec.clients.agents.stream.llm import LLMStreamPolicy

    label = default_label("llm", settings)
    model, temperature = settings.model, settings.temperature
    return StreamAgent(
        label, lambda ep: LLMStreamPolicy(model, ep, label=label, temperature=temperature)
    )


STREAM_AGENTS: Final = {
    "random": AgentEntry(
        AgentProfile("a uniformly random item of each choice set (seeded)", 21, 0), _random
    ),
    "popularity": AgentEntry(
        AgentProfile("the highest-rated item of each choice set", 21, 0), _popularity
    ),
    "oracle": AgentEntry(
        AgentProfile("reads the utilities; regret 0 (the ceiling)", 21, 0), _oracle
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
