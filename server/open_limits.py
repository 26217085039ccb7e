"""Limits on a server's open episodes, shared by the kinds whose episodes a client opens
and may abandon (ranking, ppr, stream): at most `max_open` open at once, at most
`max_per_owner` of one owner (a client: its run plan, its bearer token, or "open" for
every client without one), so one client that opens and abandons episodes cannot lock
the others out; and the time each was last addressed, so a periodic sweep ends the idle
ones (`sweep_forever`) and they stop holding the limits.

A sealed run's starts also name their task: an owner (a plan) holds at most one open trial
of a task, so trials of one task cannot be played side by side and pool their budgets (a
ranking episode's tool calls, a stream's questions and feedback) while each log stays
within its own. Open mode does not ask (it can replay any task at will, so the rule would
defend nothing there, and RL harnesses play a task's rollouts side by side).

An open server's client is its address, and any local user can send from anywhere in
127.0.0.0/8: spread over a hundred addresses, one user filled the server's 10,000 places
within its per-client quota, and every other client was refused. So the server's cap
is shared fairly once reached (`crowding`, `make_room`): a start by a client holding h
open episodes may end the longest idle episode of a client holding at least h + 2 (never
one with a call in flight, never a plan's), which ends as agent_error, detail "evicted:
...". A client can then always start one, and only those holding the most lose any.
Sealed runs are as before: a plan's start evicts nothing and is never evicted.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Protocol

import anyio

from taurec.server.episode_end import EVICTED, IDLE, EpisodeEnd
from taurec.tasks.errors import EpisodeError
from taurec.tasks.trajectory.format import EndReason

Clock = Callable[[], float]
#: How a sealed run's owner (its plan) is named.
PLAN_OWNER = "plan:"

log = logging.getLogger(__name__)


class OpenLimits:
    def __init__(self, max_open: int, max_per_owner: int, clock: Clock = time.monotonic) -> None:
        self.max_open = max_open
        self.max_per_owner = max_per_owner
        self._clock = clock
        self._owner: dict[str, str] = {}  # open episode id -> owner
        self._last: dict[str, float] = {}  # open episode id -> last addressed
        self._by_owner: Counter[str] = Counter()
        self._trial: dict[str, tuple[str, str]] = {}  # open episode id -> (owner, task)
        self._open_trial: dict[tuple[str, str], tuple[str, int]] = {}  # -> (episode, trial)

    @property
    def open_count(self) -> int:
        return len(self._owner)

    def open_count_of(self, owner: str) -> int:
        return self._by_owner[owner]

    def check(self, owner: str, task_id: str | None = None) -> None:
        """EpisodeError when `owner` may not open one more episode now; given `task_id` (a
        sealed run's start), also while `owner` has a trial of that task open."""
        if len(self._owner) >= self.max_open:
            raise EpisodeError(
                f"the server already has {self.max_open} open episodes, its limit; finish "
                "some before starting more"
            )
        if self._by_owner[owner] >= self.max_per_owner:
            raise EpisodeError(
                f"you already have {self.max_per_owner} open episodes, this server's limit per "
                "client (max_open_per_client); finish some (or abort_episode) before starting "
                "more"
            )
        if task_id is not None and (held := self._open_trial.get((owner, task_id))):
            episode_id, trial = held
            raise EpisodeError(
                f"task {task_id!r} already has an open trial (trial {trial}, episode "
                f"{episode_id[:12]}...): a sealed run plays one trial of a task at a time; "
                "finish that episode (or abort_episode it) before starting another trial"
            )

    def opened(
        self, episode_id: str, owner: str, task_id: str | None = None, trial: int = 0
    ) -> None:
        """Count `episode_id` against `owner`; given `task_id`, as its open trial `trial`."""
        self._owner[episode_id] = owner
        self._last[episode_id] = self._clock()
        self._by_owner[owner] += 1
        if task_id is not None:
            self._trial[episode_id] = (owner, task_id)
            self._open_trial[(owner, task_id)] = (episode_id, trial)

    def crowding(self, owner: str) -> list[str]:
        """When the server holds `max_open` episodes: the open episodes a start by `owner`
        may end to take a place, longest idle first: those of owners that are no plan and
        hold at least two more than `owner` (so no client loses one to a client that would
        then hold as many). Empty while there is room."""
        if len(self._owner) < self.max_open:
            return []
        floor = self._by_owner[owner] + 2
        crowded = [
            (self._last[e], e)
            for e, o in self._owner.items()
            if not o.startswith(PLAN_OWNER) and self._by_owner[o] >= floor
        ]
        return [e for _, e in sorted(crowded)]

    def owner_of(self, episode_id: str) -> str | None:
        return self._owner.get(episode_id)

    def touched(self, episode_id: str) -> None:
        if episode_id in self._last:
            self._last[episode_id] = self._clock()

    def closed(self, episode_id: str) -> None:
        owner = self._owner.pop(episode_id, None)
        self._last.pop(episode_id, None)
        if (held := self._trial.pop(episode_id, None)) is not None:
            self._open_trial.pop(held, None)
        if owner is not None:
            self._by_owner[owner] -= 1
            if not self._by_owner[owner]:
                del self._by_owner[owner]

    def idle(self, timeout: float) -> list[str]:
        """The open episodes not addressed for `timeout` seconds, longest idle first."""
        now = self._clock()
        stale = [(t, e) for e, t in self._last.items() if now - t >= timeout]
        return [e for _, e in sorted(stale)]

    def idle_for(self, episode_id: str) -> float:
        return self._clock() - self._last.get(episode_id, self._clock())


async def sweep_forever(
    expire: Callable[[float], Awaitable[int]], timeout: float, every: float | None = None
) -> None:
    """Forever: every `every` seconds (default: a tenth of `timeout`, at most a minute),
    `expire(timeout)`, shielded from cancellation; each sweep that ends episodes is
    logged. Cancelling it is safe."""
    every = every if every is not None else min(timeout / 10, 60.0)
    while True:
        await anyio.sleep(every)
        with anyio.CancelScope(shield=True):
            ended = await expire(timeout)
        if ended:
            log.warning("ended %d episodes idle for %g s", ended, timeout)


class Expirable(Protocol):
    """An open episode as the idle sweep sees it: its lock, whether it has ended, and how
    to end it (agent_error with the given detail)."""

    @property
    def lock(self) -> anyio.Lock: ...

    @property
    def ended(self) -> bool: ...

    async def expire(self, end: EpisodeEnd) -> None: ...


async def expire_idle(
    limits: OpenLimits, timeout: float, find: Callable[[str], Expirable | None]
) -> int:
    """End every open episode no call addressed for `timeout` seconds (agent_error,
    "idle timeout: ..."), skipping any with a call in flight; how many were ended."""
    ended = 0
    for episode_id in limits.idle(timeout):
        episode = find(episode_id)
        if episode is None or episode.lock.locked():
            continue
        async with episode.lock:
            if episode.ended or limits.idle_for(episode_id) < timeout:
                continue
            detail = f"{IDLE}no call for {timeout:g} s"
            await episode.expire(EpisodeEnd(EndReason.AGENT_ERROR, detail=detail))
            ended += 1
    return ended


async def make_room(
    limits: OpenLimits, owner: str, find: Callable[[str], Expirable | None]
) -> bool:
    """When the server is full: end the longest idle episode `owner` may crowd out (see
    `OpenLimits.crowding`; agent_error, "evicted: ..."), skipping any with a call in
    flight; whether one was ended. A plan's start (sealed) crowds nothing out."""
    if owner.startswith(PLAN_OWNER):
        return False
    for episode_id in limits.crowding(owner):
        episode = find(episode_id)
        holder = limits.owner_of(episode_id)
        if episode is None or holder is None or episode.lock.locked():
            continue
        held = limits.open_count_of(holder)
        async with episode.lock:
            if episode.ended:
                continue
            detail = (
                f"{EVICTED}the server was full ({limits.max_open} open episodes, "
                f"max_open_episodes) and this client held {held} of them, the most; its "
                f"longest idle episode was ended to give a client holding "
                f"{limits.open_count_of(owner)} a place"
            )
            await episode.expire(EpisodeEnd(EndReason.AGENT_ERROR, detail=detail))
        log.warning("evicted episode %s of %s to make room for %s", episode_id[:8], holder, owner)
        return True
    return False
