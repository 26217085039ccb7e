"""The calls of one model response (a batch), and a commit held for the rest of its batch.

A client may say which model response each tool call came in: request `_meta`
`"taurec/batch": {"id": "<text>", "size": <how many calls that response made>}`. The id is
logged on the call's `tool_call` event, so the evaluator can tell which calls were made
together (τ-Rec's orchestrator runs every call of a response, even after a `recommend`,
and records the response's text after them).

A client that names no batch but sends calls concurrently (an SDK running a response's
tool calls side by side) gets one made for it: calls that came while a commit was running
(they wait for the episode's lock) are that commit's batch, logged with the batch id
`concurrent:<the commit's call id>`.

A commit that ends the episode before the last call of its batch is held: the end record
waits until the batch's other calls have come. Each of them is logged, with the batch,
as a refused call (the episode had ended, so the tool did not run); the last one writes
the end record. Any other call (of another batch, or of none), an abort, the idle sweep
or a shutdown writes it at once. Whatever writes it, the end is the commit's: the agent
was told so with the commit's result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final

import anyio

from taurec.server.episode_end import EpisodeEnd
from taurec.server.http_fairness import locked
from taurec.tasks.errors import ArgumentError, short_repr
from taurec.tasks.trajectory.format import CONCURRENT_BATCH

#: The longest batch id a client may send.
MAX_BATCH_ID: Final = 64
#: The most calls one batch may announce (the per-episode tool-call limit applies as well).
MAX_BATCH_SIZE: Final = 1_000
_SHAPE: Final = '{"id": "<text>", "size": <calls in this model response>}'


@dataclass(frozen=True)
class Batch:
    id: str
    size: int


def batch_of(raw: Any) -> Batch | None:
    """The batch a request's `_meta["taurec/batch"]` names; None when it names none.
    ArgumentError, naming what was wrong, when it is malformed."""
    if raw is None:
        return None
    where = "_meta.taurec/batch"
    if not isinstance(raw, Mapping) or set(raw) - {"id", "size"}:
        raise ArgumentError(where, f"expected {_SHAPE}, got {short_repr(raw)}")
    batch_id, size = raw.get("id"), raw.get("size")
    if not isinstance(batch_id, str) or not 1 <= len(batch_id) <= MAX_BATCH_ID:
        raise ArgumentError(
            where,
            f"id: expected text of 1 to {MAX_BATCH_ID} characters, got {short_repr(batch_id)}",
        )
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_BATCH_SIZE:
        raise ArgumentError(
            where,
            f"size: expected a whole number from 1 to {MAX_BATCH_SIZE}, got {short_repr(size)}",
        )
    return Batch(batch_id, size)


class BatchState:
    """Which batch an episode's calls are coming in, and the end a commit holds until the
    rest of its batch has come. Callers hold the episode's lock (taken with `turn`)."""

    def __init__(self, lock: anyio.Lock) -> None:
        self.current: Batch | None = None
        self.seen = 0  # calls of `current` that have come, the latest included
        self.held: EpisodeEnd | None = None
        self._lock = lock
        self._arrived = 0  # calls that have come for the episode, numbered from 1
        self._waiting: set[int] = set()  # those waiting for the lock
        self._running: int | None = None  # the one holding it
        self._with_commit: frozenset[int] = frozenset()  # those that came while a commit ran

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """The episode's lock, for one call; the batch state learns which calls came while
        another was running."""
        self._arrived += 1
        mine = self._arrived
        self._waiting.add(mine)
        try:
            async with locked(self._lock):  # waiting, the request's HTTP turn goes on
                self._waiting.discard(mine)
                self._running = mine
                yield
        finally:
            if mine in self._waiting and mine in self._with_commit and self.current is not None:
                # it gave up before its turn: the batch made for the commit is one call smaller
                self.current = Batch(self.current.id, self.current.size - 1)
            self._waiting.discard(mine)

    def of_call(self, batch: Batch | None) -> Batch | None:
        """The batch of the call now running: the one its request names, or the batch made
        for a commit it came while (see the module docstring)."""
        if batch is None and self._running in self._with_commit:
            return self.current
        return batch

    @property
    def id(self) -> str | None:
        """The batch id to log on the call being handled (None: it named none)."""
        return None if self.current is None else self.current.id

    def enter(self, batch: Batch | None) -> None:
        """A call of `batch` has come (each call enters once, before it is logged)."""
        if batch is None or self.current is None or batch.id != self.current.id:
            self.current, self.seen = batch, 0
        self.seen += batch is not None

    def hold(self, end: EpisodeEnd, call_id: str) -> bool:
        """Hold `end`, which the call `call_id` made, when calls of its batch are still to
        come (for a call of no batch: calls that came while it ran); True if held."""
        if self.current is None and self._waiting:
            self._with_commit = frozenset(self._waiting)
            self.current = Batch(f"{CONCURRENT_BATCH}{call_id}", 1 + len(self._with_commit))
            self.seen = 1
        if self.current is None or self.seen >= self.current.size:
            return False
        self.held = end
        return True

    def continues(self, batch: Batch | None) -> bool:
        """A call of `batch` belongs to the batch whose commit is held, with calls to come."""
        current = self.current
        return (
            self.held is not None
            and batch is not None
            and current is not None
            and batch.id == current.id
            and self.seen < current.size
        )

    @property
    def complete(self) -> bool:
        """Every call the current batch announced has come."""
        return self.current is None or self.seen >= self.current.size

    def release(self) -> EpisodeEnd | None:
        """The held end, no longer held."""
        held, self.held = self.held, None
        return held
