"""Fair service per client over HTTP: requests take turns on the one event loop, client by
client, so that a flood of cheap calls cannot slow another client's.

Everything a request does in the app (the MCP SDK's parsing, the tool, its log lines) runs
on one event loop, step by step, interleaved with every other request in flight: a client
keeping 16 cheap calls in flight (well under its request rate) made another client's
p95 7.4x its quiet figure on a ranking server, 4.6x on a stream server. So a request
enters the app only with one of `slots` turns (FairGate), handed out client by client
(round robin over the clients waiting, each client's requests in order, and a client
that had nothing waiting before those with a backlog): a client sending one call at a
time waits for the turn in progress only, whatever another keeps in flight.

A turn is given back when the request ends, when its answer starts to be sent (a client
that does not read its answers cannot hold one), and while the request waits on something
outside the loop (`outside_the_gate`: catalog searches in their worker threads, LLM
calls, an episode lock another request holds), taken again after. A turn held longer than
`lease_seconds` no longer stops the next request from entering: a wait no one marked
(a thread doing an LLM customer's call, say) delays others that long at most, and can never
deadlock them.

Heavy calls were made fair before (catalog_workers.py: a client holds at most half of the
worker threads); this makes the cheap ones fair too, on every kind's server.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, MutableMapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Final

import anyio

Clock = Callable[[], float]
Scope = MutableMapping[str, Any]

#: The ASGI scope key under which the guard leaves the request's turn (for the app).
TURN_SCOPE_KEY: Final = "taurec.turn"
#: Turns held at once: one, so a request runs alone but for requests waiting elsewhere.
DEFAULT_SLOTS: Final = 1
#: After this long a turn no longer keeps the next request out (it stays the holder's).
DEFAULT_LEASE_SECONDS: Final = 0.25

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Turn:
    """One request's place in the gate."""

    gate: FairGate
    owner: str
    held: bool = False
    since: float = 0.0  # when it was last handed the turn
    granted: anyio.Event = field(default_factory=anyio.Event)

    def give_back(self) -> None:
        """Hand the turn on (nothing when it is not held)."""
        self.gate.release(self)

    async def take_again(self) -> None:
        """Wait for a turn again (ahead of its client's new requests)."""
        await self.gate.acquire(self, again=True)


class FairGate:
    """Turns handed out client by client (see the module docstring)."""

    def __init__(
        self,
        slots: int = DEFAULT_SLOTS,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        clock: Clock = time.monotonic,
    ) -> None:
        self.slots = slots
        self.lease_seconds = lease_seconds
        self._clock = clock
        self._holders: set[Turn] = set()
        self._waiting: OrderedDict[str, deque[Turn]] = OrderedDict()  # next owner first

    def turn(self, owner: str) -> Turn:
        return Turn(self, owner)

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._waiting.values())

    def _fresh(self) -> int:
        """Holders still within their lease (the ones that keep others out)."""
        now = self._clock()
        return sum(1 for t in self._holders if now - t.since < self.lease_seconds)

    async def acquire(self, turn: Turn, *, again: bool = False) -> None:
        """Wait until `turn` is handed a turn. `again`: it held one before and waits ahead
        of its client's other requests."""
        if turn.held:
            return
        if not self._waiting and self._fresh() < self.slots:
            self._grant(turn)
            return
        turn.granted = anyio.Event()
        queue = self._waiting.get(turn.owner)
        if queue is None:  # a client with nothing waiting goes before those with a backlog
            queue = self._waiting[turn.owner] = deque()
            self._waiting.move_to_end(turn.owner, last=False)
        if again:
            queue.appendleft(turn)
        else:
            queue.append(turn)
        self._hand_on()
        try:
            while not turn.held:
                wait = self._next_expiry()
                with anyio.move_on_after(wait):
                    await turn.granted.wait()
                if not turn.held:
                    self._hand_on()  # a lease ran out: its turn no longer counts
        except BaseException:
            self._drop(turn)
            raise

    def release(self, turn: Turn) -> None:
        if turn.held:
            turn.held = False
            self._holders.discard(turn)
            self._hand_on()

    def _grant(self, turn: Turn) -> None:
        turn.held = True
        turn.since = self._clock()
        self._holders.add(turn)
        turn.granted.set()

    def _hand_on(self) -> None:
        """Grant turns to waiting requests, one client after another, while there is room."""
        while self._waiting and self._fresh() < self.slots:
            owner, queue = next(iter(self._waiting.items()))
            turn = queue.popleft()
            if queue:
                self._waiting.move_to_end(owner)  # its next request waits for the others
            else:
                del self._waiting[owner]
            self._grant(turn)

    def _next_expiry(self) -> float:
        """Seconds until the first holder's lease runs out (a little past it)."""
        now = self._clock()
        left = [self.lease_seconds - (now - t.since) for t in self._holders]
        return max(0.001, min(left, default=self.lease_seconds)) + 0.001

    def _drop(self, turn: Turn) -> None:
        """A waiter cancelled (its client went away): out of the queue, or its turn back."""
        queue = self._waiting.get(turn.owner)
        if queue is not None and turn in queue:
            queue.remove(turn)
            if not queue:
                del self._waiting[turn.owner]
        self.release(turn)


# The turn of the request whose tool runs now (set from the scope by OwnerMiddleware).
_TURN: ContextVar[Turn | None] = ContextVar("taurec_turn", default=None)


def use_turn(scope: Any) -> Any:
    """Make the turn the guard left in `scope` the current request's (a ContextVar token
    for `reset_turn`)."""
    turn = scope.get(TURN_SCOPE_KEY) if isinstance(scope, MutableMapping) else None
    return _TURN.set(turn if isinstance(turn, Turn) else None)


def reset_turn(token: Any) -> None:
    _TURN.reset(token)


@asynccontextmanager
async def outside_the_gate() -> AsyncIterator[None]:
    """While the block waits on something outside the event loop (a worker thread, an
    LLM call, a lock another request holds), the request's turn goes to the next client;
    it is taken again after. Nothing outside an HTTP request."""
    turn = _TURN.get()
    if turn is None or not turn.held:
        yield
        return
    turn.give_back()
    try:
        yield
    finally:
        with anyio.CancelScope(shield=True):
            await turn.take_again()


@asynccontextmanager
async def locked(lock: anyio.Lock) -> AsyncIterator[None]:
    """`async with lock`, giving the request's turn away while another request holds it."""
    if not lock.locked():
        async with lock:
            yield
        return
    async with outside_the_gate():
        await lock.acquire()
    try:
        yield
    finally:
        lock.release()
