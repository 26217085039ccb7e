"""Agents for the Ray backend's tests: picklable factories (the tests ship this module to
Ray workers by value)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from taurec.clients.agents.base import Agent, Episode
from taurec.clients.agents.recommendation.scripted import ScriptedAgent


class KillsItsWorkerOnce:
    """The scripted agent, except that on `task_id` it first kills its own process with
    SIGKILL, once (a marker file remembers): a worker dying mid-episode."""

    def __init__(self, marker: Path, task_id: str) -> None:
        self.label = "scripted"
        self.marker = marker
        self.task_id = task_id

    async def run(self, episode: Episode) -> None:
        if episode.task_id == self.task_id and not self.marker.exists():
            self.marker.write_text(str(os.getpid()))
            await episode.say("Let me think about that.")  # the log is half-written here
            os.kill(os.getpid(), signal.SIGKILL)
        await ScriptedAgent().run(episode)


class AlwaysKillsItsWorker:
    """Kills its process on `task_id` every time: retries cannot save that episode."""

    def __init__(self, task_id: str) -> None:
        self.label = "scripted"
        self.task_id = task_id

    async def run(self, episode: Episode) -> None:
        if episode.task_id == self.task_id:
            os.kill(os.getpid(), signal.SIGKILL)
        await ScriptedAgent().run(episode)


def scripted() -> Agent:
    return ScriptedAgent()


def kills_its_worker_once(marker: str, task_id: str) -> Agent:
    return KillsItsWorkerOnce(Path(marker), task_id)


def always_kills_its_worker(task_id: str) -> Agent:
    return AlwaysKillsItsWorker(task_id)


class Raises:
    """Raises in every episode, after its first message."""

    label = "scripted"

    async def run(self, episode: Episode) -> None:
        await episode.say("Let me think about that.")
        raise RuntimeError("the agent broke on a Ray worker")


def raises() -> Agent:
    return Raises()
