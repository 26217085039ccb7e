"""Agents for PPR tasks (AgenticRec's pairwise preference), registered for the "ppr" kind.

random answers A or B with a seeded coin per (seed, task, trial): accuracy 0.5 in
expectation, the floor (a constant answer earns the same, since the position of the
correct item was drawn at random when the pairs were mined). The oracle reads the answer
key (accuracy 1). The LLM agent is in ppr_llm.py, imported only when asked for.
"""

from __future__ import annotations

import random
from functools import cache

from taurec.clients.agents.base import Agent, AgentSettings, Episode
from taurec.clients.agents.registry import AGENT_KINDS, AgentEntry, AgentProfile
from taurec.tasks.ranking.pair import SUBMIT
from taurec.tasks.suite import Suite, load_suite


class RandomChooser:
    def __init__(self, label: str = "random", seed: int = 0) -> None:
        self.label, self.seed = label, seed

    def choose(self, task_id: str, trial: int) -> str:
        return random.Random(f"{self.seed}:{task_id}:{trial}").choice("AB")

    async def run(self, episode: Episode) -> None:
        await episode.call(SUBMIT, answer=self.choose(episode.task_id, episode.trial))


@cache
def _suite(spec: str) -> Suite:
    return load_suite(spec)


class OracleChooser:
    def __init__(self, suite: str, label: str = "oracle") -> None:
        self.label = label
        self.suite = _suite(suite)

    async def run(self, episode: Episode) -> None:
        task = self.suite.get(episode.task_id)
        assert task is not None, f"task {episode.task_id!r} is not in suite {self.suite.id!r}"
        await episode.call(SUBMIT, answer=task.answer)


def _llm(settings: AgentSettings) -> Agent:
    from taurec.clients.agents.ranking.ppr_llm import make_pair_llm_agent

    return make_pair_llm_agent(settings)


AGENT_KINDS.register("ppr")(
    {
        "random": AgentEntry(
            AgentProfile("answers A or B at random (seeded); accuracy 0.5", 1, 0),
            lambda s: RandomChooser(s.label or "random", s.seed),
        ),
        "oracle": AgentEntry(
            AgentProfile("reads the answer key; accuracy 1", 1, 0),
            lambda s: OracleChooser(s.suite, s.label or "oracle"),
        ),
        "llm": AgentEntry(
            AgentProfile("a litellm agent with the PPR prompt, \\boxed{A|B}", 1, 0, 1, True),
            _llm,
        ),
    }
)
