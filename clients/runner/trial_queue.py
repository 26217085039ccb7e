"""The order a run hands its episodes to workers: plan order, except that two trials of one
task are never in flight at once. A sealed server refuses a second open trial of a task
(server/open_limits.py), and trials are meant to be played apart; so a free worker takes
the first remaining episode whose task has nothing in flight, and waits only when every
remaining episode's task has.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable

import anyio

from taurec.clients.runner.plan import EpisodeSpec


class TrialQueue:
    """The episodes still to hand out, by task; which tasks have one in flight."""

    def __init__(self, specs: Iterable[EpisodeSpec]) -> None:
        self._waiting: dict[str, deque[tuple[int, EpisodeSpec]]] = {}
        for index, spec in enumerate(specs):
            self._waiting.setdefault(spec.task_id, deque()).append((index, spec))
        self._left = sum(len(q) for q in self._waiting.values())
        # tasks with nothing in flight, by the plan position of their next episode
        self._free = [(q[0][0], task) for task, q in self._waiting.items()]
        heapq.heapify(self._free)
        self._in_flight: set[str] = set()
        self._freed: anyio.Event | None = None

    def __len__(self) -> int:
        """Episodes not handed out yet."""
        return self._left

    @property
    def tasks(self) -> int:
        """Distinct tasks among the episodes: at most this many can be in flight."""
        return len(self._waiting)

    def take(self) -> EpisodeSpec | None:
        """The first remaining episode whose task has none in flight, now in flight; None
        when there is no such episode (none left, or every remaining task is in flight)."""
        if not self._free:
            return None
        _, task = heapq.heappop(self._free)
        _, spec = self._waiting[task].popleft()
        self._in_flight.add(task)
        self._left -= 1
        return spec

    def done(self, spec: EpisodeSpec) -> None:
        """`spec` (handed out by `take`) has ended: its task's next trial may go."""
        task = spec.task_id
        if task not in self._in_flight:
            return
        self._in_flight.discard(task)
        if queue := self._waiting[task]:
            heapq.heappush(self._free, (queue[0][0], task))
        if self._freed is not None:
            self._freed.set()
            self._freed = None

    async def next(self) -> EpisodeSpec | None:
        """`take`, waiting while every remaining episode's task is in flight; None once
        none is left."""
        while True:
            spec = self.take()
            if spec is not None or not self._left:
                return spec
            if self._freed is None:
                self._freed = anyio.Event()
            await self._freed.wait()
