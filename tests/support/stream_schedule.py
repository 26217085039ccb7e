"""A stream agent that improves on a fixed schedule and never reads its feedback.

In episode k of a stream it recommends the item ranked 11 − k by the customer's utility
(read from the suite, as the ceiling reads it, for the episode its view shows): rank 10
first, the best item last. Its
regret falls with the episode index, so its slope says "improves"; it does exactly the
same whatever the feedback, so against a control run it must never be "learns from
feedback". `--agent tests/support/stream_schedule.py:ScheduleAgent` plays it.
"""

from __future__ import annotations

from typing import Any

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.stream.agents import StreamAgent
from taurec.clients.agents.stream.baselines import played_episode
from taurec.clients.agents.stream.play import Action, Dialogue
from taurec.tasks.stream.task import StreamTask
from taurec.tasks.suite import load_suite


class SchedulePolicy:
    def __init__(self, task: StreamTask, label: str = "schedule") -> None:
        self.label = label
        self.task = task

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        spec = played_episode(self.task, view)
        rank = max(0, 10 - int(view["episode"]))  # 0-based: episode 1 -> rank 10
        return "recommend", spec.ranked()[min(rank, len(spec.item_ids) - 1)]

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        return None


class ScheduleAgent(StreamAgent):
    def __init__(self, settings: AgentSettings) -> None:
        tasks = {t.id: t for t in load_suite(settings.suite).tasks}
        super().__init__("schedule", lambda ep: SchedulePolicy(tasks[ep.task_id]))
