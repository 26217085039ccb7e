"""The episodes of one server: starting them, finding them by id, remembering how they ended.

Isolation: an episode is reached only through its id (128 random bits from `secrets`),
and each has its own lock (see episode.py), so different episodes proceed concurrently
with no shared mutable state beyond this store's two dicts, which only the event loop
touches.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from taurec.catalog.store import Catalog
from taurec.tasks.task import RecommendationTask
from taurec.tasks.trajectory import AgentInfo, Header, SimulatorInfo, SuiteRef
from taurec.tasks.trajectory_signing import LogKey

from .episode import Episode, EpisodeEnd, ended_message
from .errors import EpisodeError, short_repr
from .simulator import UserSimulator
from .trajectory_writer import TrajectoryWriter, log_path, now_utc

SimulatorFactory = Callable[[RecommendationTask, Catalog, int], UserSimulator]

#: Ended episodes remembered (to say how they ended); older ones are forgotten.
ENDED_KEPT: Final = 100_000


def derive_seed(task_id: str, trial: int) -> int:
    """The default seed of (task, trial): stable across runs, machines and Python versions."""
    digest = hashlib.sha256(f"taurec:{task_id}:{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


@dataclass(frozen=True)
class RunFacts:
    """What every episode header of one server run shares."""

    run_id: str
    suite: SuiteRef
    catalog_sha256: str
    server_version: str
    log_dir: Path
    simulator_settings: dict[str, Any] = field(default_factory=dict)
    log_key: LogKey | None = None  # signs each log's end record (None: unsigned logs)


@dataclass(frozen=True)
class Seal:
    """What a sealed episode carries: its plan's run id and plan id, and `on_end`, called
    with the episode once its end record is written (the run register's end line)."""

    run_id: str
    plan_id: str
    on_end: Callable[[Episode], None]

    def chain_retire(self, retire: Callable[[Episode], None]) -> Callable[[Episode], None]:
        def both(episode: Episode) -> None:
            try:
                self.on_end(episode)
            finally:
                retire(episode)

        return both


class EpisodeStore:
    """The episodes of one server: open ones by id, and how recently ended ones ended."""

    def __init__(
        self,
        catalog: Catalog,
        make_user: SimulatorFactory,
        facts: RunFacts,
        *,
        max_open: int = 10_000,
    ) -> None:
        self.catalog = catalog
        self.facts = facts
        self._make_user = make_user
        self._max_open = max_open
        self._open: dict[str, Episode] = {}
        self._ended: dict[str, EpisodeEnd] = {}

    @property
    def open_count(self) -> int:
        return len(self._open)

    async def start(
        self,
        task: RecommendationTask,
        *,
        trial: int,
        seed: int,
        agent_label: str,
        seal: Seal | None = None,
    ) -> Episode:
        """A new episode: its log holds the header and the user's opening message.
        `seal`: the sealed run it belongs to (its run id, plan id, and a hook called with
        the episode once it has ended); None in open mode."""
        if len(self._open) >= self._max_open:
            raise EpisodeError(
                f"the server already has {self._max_open} open episodes, its limit; finish "
                "some (recommend) before starting more"
            )
        episode_id = secrets.token_hex(16)
        user = self._make_user(task, self.catalog, seed)
        facts = self.facts
        run_id = facts.run_id if seal is None else seal.run_id
        header = Header(
            run_id=run_id,
            episode_id=episode_id,
            kind=task.kind,
            agent=AgentInfo(label=agent_label),
            task_id=task.id,
            task_sha256=task.sha256(),
            suite=facts.suite,
            catalog_sha256=facts.catalog_sha256,
            trial=trial,
            seed=seed,
            simulator=SimulatorInfo(kind=user.kind, settings=facts.simulator_settings),
            server_version=facts.server_version,
            started_at=now_utc(),
            mode="open" if seal is None else "sealed",
            plan_id=None if seal is None else seal.plan_id,
        )
        path = log_path(facts.log_dir, run_id, task.id, trial, episode_id)
        episode = Episode(
            episode_id=episode_id,
            task=task,
            trial=trial,
            seed=seed,
            user=user,
            writer=TrajectoryWriter(path, header, facts.log_key),
            max_turns=task.protocol.max_turns,
            on_end=self._retire if seal is None else seal.chain_retire(self._retire),
        )
        self._open[episode_id] = episode
        async with episode.lock:
            await episode.greet()
        return episode

    def get(self, episode_id: str) -> Episode:
        """The open episode with this id; EpisodeError if it is unknown or has ended."""
        episode = self._open.get(episode_id)
        if episode is not None:
            return episode
        end = self._ended.get(episode_id)
        if end is not None:
            raise EpisodeError(ended_message(episode_id, end))
        raise EpisodeError(
            f"unknown episode_id {short_repr(episode_id)}; expected the episode_id that "
            "start_episode returned"
        )

    def open_episodes(self) -> list[Episode]:
        """The episodes not yet ended, oldest first: a copy, so ending them while iterating
        is safe."""
        return list(self._open.values())

    def _retire(self, episode: Episode) -> None:
        assert episode.end is not None
        self._open.pop(episode.id, None)
        self._ended[episode.id] = episode.end
        while len(self._ended) > ENDED_KEPT:
            del self._ended[next(iter(self._ended))]
