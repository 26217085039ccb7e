"""A small Python environment over ranking episodes, for RL trainers that drive episodes
without MCP. It runs the same episode code as the server (episode.py):

    env = RankingEnv.from_suite("ranking:builtin")
    obs = env.reset(env.suite.tasks[0])                    # the opening prompt
    step = env.step({"name": "get_user_profile", "arguments": {}})
    step = env.step({"name": "submit_ranking", "arguments": {"ranking": [...10 ids]}})
    step.done, step.reward                                 # reward only at the end

`trajectory` records every step as (name, arguments, observation) for the caller's log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from taurec.server.ranking.app import ranking_data
from taurec.server.ranking.episode import RankingEpisode
from taurec.server.ranking.tools import RankingData
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.suite import Suite, load_suite


@dataclass(frozen=True)
class Step:
    observation: str
    done: bool
    reward: float | None  # set on the step that ends the episode
    is_error: bool = False


@dataclass
class RankingEnv:
    rd: RankingData
    suite: Suite | None = None
    episode: RankingEpisode | None = None
    trajectory: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_suite(cls, spec: str) -> RankingEnv:
        suite = load_suite(spec)
        return cls(ranking_data(suite), suite)

    def reset(self, task: RankingTask) -> str:
        self.episode = RankingEpisode(self.rd, task)
        self.trajectory = []
        return self.episode.opening()

    def step(self, tool_call: dict[str, Any]) -> Step:
        """One tool call {"name": ..., "arguments": {...}}; submit_ranking ends it."""
        if self.episode is None:
            raise RuntimeError("call reset(task) before step()")
        name = tool_call.get("name")
        arguments = tool_call.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise ValueError('tool_call: expected {"name": str, "arguments": dict}')
        result = self.episode.call(name, arguments)
        self.trajectory.append({"name": name, "arguments": arguments, "observation": result.text})
        reward = result.outcome.reward if result.outcome is not None else None
        return Step(result.text, result.done, reward, result.is_error)
