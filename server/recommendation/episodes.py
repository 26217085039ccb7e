"""The episodes of one server: starting them, finding them by id, remembering how they ended.

Isolation: an episode is reached only through its id (128 random bits from `secrets`),
and each has its own lock (see episode.py), so different episodes proceed concurrently
with no shared mutable state beyond this store's dicts, which only the event loop
touches.

Limits (server/open_limits.py, shared with the other kinds): at most `max_open` episodes
are open at once, and at most `max_open_per_owner` of one owner (a client), so one
client that opens and abandons episodes cannot lock the others out. Abandoned episodes
are ended by `expire_idle` (the server sweeps periodically). When the server stops,
`shutdown_cut` says how each open one ends: in a sealed run, one whose user has replied
counts as played (episode_end.shutdown_end).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Final

import anyio

from taurec.catalog.store import Catalog
from taurec.server.episode_end import (
    LOG_FAILED,
    SHUTDOWN_DETAIL,
    EpisodeEnd,
    ended_message,
    shutdown_end,
)
from taurec.server.model_call_log import attach, simulator_model
from taurec.server.open_limits import (
    PLAN_OWNER,
    Clock,
    OpenLimits,
    expire_idle,
    make_room,
    sweep_forever,
)
from taurec.server.recommendation.episode import Episode
from taurec.server.recommendation.simulator import UserSimulator
from taurec.server.recommendation.simulator.agent_nlu import AgentActReader, AgentNLU
from taurec.server.request_meta import reported_agent
from taurec.server.run_facts import RunFacts, derive_seed
from taurec.server.seal import Seals
from taurec.server.trajectory_writer import LogWriteError, TrajectoryWriter, log_path, now_utc
from taurec.tasks.errors import EpisodeError, short_repr
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import AgentInfo, EndReason, Header, SimulatorInfo

SimulatorFactory = Callable[[RecommendationTask, Catalog, int], UserSimulator]

#: Ended episodes remembered (to say how they ended); older ones are forgotten.
ENDED_KEPT: Final = 100_000
#: The owner of episodes started by a client that has no token or plan.
OPEN_OWNER: Final = "open"

log = logging.getLogger(__name__)


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
        max_open_per_owner: int | None = None,
        clock: Clock = time.monotonic,
        nlu: AgentActReader | None = None,
    ) -> None:
        """`max_open_per_owner` None: only `max_open` applies. `clock` (seconds, monotonic)
        times idleness."""
        self.catalog = catalog
        self.facts = facts
        self._make_user = make_user
        self.limits = OpenLimits(max_open, max_open_per_owner or max_open, clock)
        self._nlu = nlu if nlu is not None else AgentNLU(catalog)
        self._open: dict[str, Episode] = {}
        self._sealed: set[str] = set()  # the open episodes that play a sealed run's plan
        self._ended: dict[str, EpisodeEnd] = {}

    @property
    def open_count(self) -> int:
        return self.limits.open_count

    def open_count_of(self, owner: str) -> int:
        """Open episodes started by `owner`."""
        return self.limits.open_count_of(owner)

    async def start(
        self,
        task: RecommendationTask,
        *,
        trial: int,
        seed: int,
        agent_label: str,
        seal: Seal | None = None,
        owner: str = OPEN_OWNER,
    ) -> Episode:
        """A new episode of `owner`: its log holds the header and the user's opening
        message. `seal`: the sealed run it belongs to (its run id, plan id, and a hook
        called with the episode once it has ended); None in open mode. A sealed episode's
        owner is its plan. EpisodeError when a limit is reached or the log cannot be
        written."""
        one_trial_of = None  # a sealed plan plays one trial of a task at a time
        if seal is not None:
            owner, one_trial_of = f"{PLAN_OWNER}{seal.plan_id}", task.id
        else:  # a full open server: the client holding the most gives up its longest idle
            await make_room(self.limits, owner, self._expirable)
        self.limits.check(owner, one_trial_of)
        episode_id = secrets.token_hex(16)
        user = self._make_user(task, self.catalog, seed)
        facts = self.facts
        run_id = facts.run_id if seal is None else seal.run_id
        header = Header(
            run_id=run_id,
            episode_id=episode_id,
            kind=task.kind,
            agent=AgentInfo(label=agent_label, **reported_agent()),
            task_id=task.id,
            task_sha256=task.sha256(),
            suite=facts.suite,
            catalog_sha256=facts.catalog_sha256,
            trial=trial,
            seed=seed,
            simulator=SimulatorInfo(
                kind=user.kind,
                model=simulator_model(facts.simulator_settings),
                settings=facts.simulator_settings,
            ),
            server_version=facts.server_version,
            started_at=now_utc(),
            mode="open" if seal is None else "sealed",
            plan_id=None if seal is None else seal.plan_id,
        )
        path = log_path(facts.log_dir, run_id, task.id, trial, episode_id)
        try:
            writer = TrajectoryWriter(path, header, facts.log_key)
            attach(writer, facts.prompts)
        except LogWriteError as exc:
            log.error("cannot start an episode of %s: %s", task.id, exc)
            raise EpisodeError(
                f"{exc.agent_text}, so no episode can start now (an infrastructure failure, "
                "not yours); tell whoever runs the server"
            ) from None
        episode = Episode(
            episode_id=episode_id,
            task=task,
            trial=trial,
            seed=seed,
            user=user,
            writer=writer,
            max_turns=task.protocol.max_turns,
            on_end=self._retire if seal is None else seal.chain_retire(self._retire),
            owner=owner,
            nlu=self._nlu,
        )
        self._open[episode_id] = episode
        if seal is not None:
            self._sealed.add(episode_id)
        self.limits.opened(episode_id, owner, one_trial_of, trial)
        async with episode.lock:
            await episode.greet()
        return episode

    def get(self, episode_id: str) -> Episode:
        """The open episode with this id; EpisodeError if it is unknown or has ended."""
        episode = self._open.get(episode_id)
        if episode is not None:
            self.limits.touched(episode_id)  # a call addressed it
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

    def shutdown_cut(self, episode: Episode, detail: str = SHUTDOWN_DETAIL) -> EpisodeEnd:
        """How the server's stop ends open `episode`: in a sealed run, once the user has
        replied to the agent (a message answered, a commit reacted to: `turns` counts the
        answered messages) it counts as played, else it may be played again."""
        replied = episode.turns > 0 or bool(episode.commits)
        seen = "the user's replies" if replied else None
        return shutdown_end(sealed=episode.id in self._sealed, seen=seen, detail=detail)

    async def expire_idle(self, timeout: float) -> int:
        """End every open episode that got no call for `timeout` seconds (agent_error,
        detail "idle timeout: ..."), skipping any with a step in flight. Returns how many
        were ended."""

        return await expire_idle(self.limits, timeout, self._expirable)

    def _expirable(self, episode_id: str) -> _Expiring | None:
        episode = self._open.get(episode_id)
        return None if episode is None else _Expiring(episode)

    async def sweep_idle(self, timeout: float, every: float | None = None) -> None:
        """Forever: every `every` seconds (default: a tenth of `timeout`, at most a
        minute), `expire_idle(timeout)`. Run it in the server's task group; cancelling it
        is safe (each expiry is shielded)."""
        await sweep_forever(self.expire_idle, timeout, every)

    def _retire(self, episode: Episode) -> None:
        assert episode.end is not None
        if self._open.pop(episode.id, None) is not None:
            self.limits.closed(episode.id)
        self._sealed.discard(episode.id)
        self._ended[episode.id] = episode.end
        while len(self._ended) > ENDED_KEPT:
            del self._ended[next(iter(self._ended))]


@dataclass(frozen=True)
class _Expiring:
    """An open episode as the idle sweep sees it (open_limits.expire_idle)."""

    episode: Episode

    @property
    def lock(self) -> anyio.Lock:
        return self.episode.lock

    @property
    def ended(self) -> bool:
        return self.episode.end is not None

    async def expire(self, end: EpisodeEnd) -> None:
        try:
            await self.episode.close(end)
        except LogWriteError as exc:  # ended all the same; its log lacks the end
            log.error("episode %s: idle expiry: %s", self.episode.id[:8], exc)


async def start_sealed(
    seals: Seals,
    store: EpisodeStore,
    task: RecommendationTask,
    trial: int | None,
    seed: int | None,
    agent_label: str | None,
) -> Episode:
    """Start the caller's planned (task, trial): the episode `seals` admits, recorded in
    the run register at its start and its end."""
    admission = seals.admit(task.id, trial, seed, agent_label)

    def ended(episode: Episode) -> None:
        assert episode.end is not None
        seals.ended(admission, episode.id, episode.end, episode.log_chain)

    try:
        episode = await store.start(
            task,
            trial=admission.trial,
            seed=derive_seed(task.id, admission.trial),
            agent_label=admission.label,
            seal=Seal(run_id=admission.run_id, plan_id=admission.plan_id, on_end=ended),
        )
    except BaseException:
        seals.cancel(admission)
        raise
    try:
        seals.started(admission, episode.id, episode.log_path)
    except LogWriteError as exc:  # a full disk: the episode cannot count, so it ends
        async with episode.lock:
            with suppress(LogWriteError):
                cut = EpisodeEnd(EndReason.INFRA_ERROR, detail=f"{LOG_FAILED}{exc.cause}")
                await episode.close(cut)
        raise EpisodeError(
            f"{exc.agent_text}, so no episode can start now (an infrastructure failure, "
            "not yours); tell whoever runs the server"
        ) from None
    return episode
