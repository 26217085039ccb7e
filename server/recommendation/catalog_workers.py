"""Catalog work off the event loop: a pool of threads, a share per client, a work budget.

A search over a large catalog takes tens of milliseconds of CPU; run on the event loop,
a client sending many of them delays every other client's every call. So searches and
filters run in a pool of `workers` threads (the cores: BM25 scoring and the filter's
column masks are numpy, which releases the GIL for most of their time), and:

- one client (`request_owner()`: its bearer token, its plan) holds at most `per_client`
  threads at once (queued or running); its further calls wait for one of its own, so
  a client with many heavy calls in flight cannot take every thread from the others;
- a call's work gets `budget_seconds` of CPU time in its thread (where the system has
  per-thread clocks; elsewhere, wall time from the moment its thread takes it up). The
  wait for a thread and time lost to other processes do not count, so a busy machine
  never refuses a call a quiet one would serve. Past the budget the caller gets
  `OverBudget` (an agent-facing error): the query itself was too heavy. Work already
  running finishes in its thread, still holding the client's share, and its result is
  dropped;
- a call still unanswered after `stall_seconds` of wall time (waiting and working) is
  the harness's failure, not the agent's: `CatalogStalled`, which ends the episode as
  infra_error.

Point lookups (one item, the user's history) stay on the loop: they take microseconds,
less than a thread hop, and so never queue behind a search.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from typing import TypeVar

import anyio

from taurec.server.http_fairness import outside_the_gate
from taurec.server.settings import ServerSettings
from taurec.tasks.errors import EpisodeError

log = logging.getLogger(__name__)

T = TypeVar("T")
#: The longest a worker thread keeps the GIL while the event loop waits for it.
GIL_SWITCH_SECONDS = 0.0005
#: How much lower than the event loop the worker threads run (nice, 0-19).
WORKER_NICENESS = 10
#: The shortest wait between two looks at a call's work clock.
MIN_WAIT_SECONDS = 0.01


def core_count() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def half_of(workers: int) -> int:
    """The default share of one client: half the threads, at least one."""
    return max(1, (workers + 1) // 2)


def _yield_to_the_loop() -> None:
    """Lower this worker thread's CPU priority (Linux: a thread has its own nice value), so
    on a busy machine the event loop, which answers every client, runs first."""
    with suppress(AttributeError, OSError):  # not Linux, or not allowed
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICENESS)


class OverBudget(EpisodeError):
    """A catalog call ran past its time budget; the agent gets this, the log marks the
    call `refused` (its result, if it came, was dropped: replay has nothing to compare)."""

    refused = True


class CatalogStalled(RuntimeError):
    """A catalog call waited past the server's stall guard: the machine or the server, not
    the agent, is at fault, so the episode ends as infra_error (never an agent's error).
    The log marks the call `refused`: no result came, so replay has nothing to compare."""

    refused = True


class WorkClock:
    """The CPU time one piece of work has used in its worker thread, read from the loop."""

    def __init__(self) -> None:
        self._clock: int | None = None  # the worker thread's CPU clock, once it started
        self._start: float | None = None
        self._end: float | None = None

    def _now(self) -> float:
        if self._clock is None:
            return time.perf_counter()
        return time.clock_gettime(self._clock)

    def timed(self, work: Callable[[], T]) -> T:
        """`work()`, in the worker thread, with its start and end on that thread's clock."""
        with suppress(AttributeError, OSError):  # no per-thread clocks: wall time instead
            self._clock = time.pthread_getcpuclockid(threading.get_ident())
        self._start = self._now()
        try:
            return work()
        finally:
            self._end = self._now()

    def used(self) -> float:
        """Seconds of work so far (0 until its thread takes it up)."""
        start, end = self._start, self._end
        if start is None:
            return 0.0
        return (end if end is not None else self._now()) - start


class CatalogWorkers:
    """The threads catalog calls run in, shared fairly between clients."""

    def __init__(
        self, workers: int, per_client: int, budget_seconds: float, stall_seconds: float = 120.0
    ) -> None:
        self.workers = workers
        self.per_client = min(per_client, workers)
        self.budget_seconds = budget_seconds
        self.stall_seconds = stall_seconds
        self._threads = ThreadPoolExecutor(
            workers, thread_name_prefix="taurec-catalog", initializer=_yield_to_the_loop
        )
        # a worker holding the GIL hands it back to the loop after this long (default 5 ms)
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_SECONDS))
        self._shares: dict[str, anyio.CapacityLimiter] = {}  # owner -> its threads in use

    @classmethod
    def of(cls, settings: ServerSettings) -> CatalogWorkers:
        """The pool `settings` describe (by default: the cores, half of them per client)."""
        workers = settings.catalog_workers or core_count()
        per_client = settings.catalog_workers_per_client or half_of(workers)
        budget, stall = settings.catalog_call_seconds, settings.catalog_call_stall_seconds
        return cls(workers, per_client, budget, stall)

    def in_use(self, owner: str) -> int:
        """Threads `owner` holds now (its calls queued or running, abandoned ones too)."""
        share = self._shares.get(owner)
        return 0 if share is None else int(share.borrowed_tokens)

    async def run(self, owner: str, name: str, work: Callable[[], T]) -> T:
        """`work()` in a thread, as `owner`'s: OverBudget once the work has used its budget,
        CatalogStalled once the call has gone `stall_seconds` without an answer."""
        share = self._shares.get(owner)
        if share is None:
            share = self._shares[owner] = anyio.CapacityLimiter(self.per_client)
        holder, clock = object(), WorkClock()  # this call, as the borrower of a token
        loop = asyncio.get_running_loop()
        finished = anyio.Event()
        future: Future[T] | None = None
        over = False

        def release() -> None:  # on the loop, once the work ended or was dropped unstarted
            share.release_on_behalf_of(holder)
            idle = share.borrowed_tokens == 0 and share.statistics().tasks_waiting == 0
            if idle and self._shares.get(owner) is share:  # forget idle clients
                del self._shares[owner]
            finished.set()

        def done(_: Future[T]) -> None:  # in the worker thread (or here, if cancelled)
            with suppress(RuntimeError):  # the loop has closed: nobody waits any more
                loop.call_soon_threadsafe(release)

        # the thread's wait gives the request's HTTP turn to the next client (http_fairness)
        async with outside_the_gate():
            with anyio.move_on_after(self.stall_seconds):
                await share.acquire_on_behalf_of(holder)
                future = self._threads.submit(clock.timed, work)
                future.add_done_callback(done)
                over = not await self._ends_within_budget(finished, clock)
                if not over:
                    return future.result()
        if future is not None:
            future.cancel()  # if it has not started, it never will (and `done` frees it)
        raise self._refusal(name, owner, over)

    async def _ends_within_budget(self, finished: anyio.Event, clock: WorkClock) -> bool:
        """Wait for the work; False once it has used its budget without ending. Work can use
        no more CPU time than wall time, so waiting what is left of the budget never lets
        it run past the budget unnoticed."""
        while not finished.is_set():
            left = self.budget_seconds - clock.used()
            if left <= 0:
                return False
            with anyio.move_on_after(max(left, MIN_WAIT_SECONDS)):
                await finished.wait()
        return True

    def _refusal(self, name: str, owner: str, over: bool) -> Exception:
        """What the caller gets: the agent's error, or the harness's failure."""
        if over:
            log.warning(
                "%s by %s used its %g s budget; its result is dropped",
                name,
                owner[:14],
                self.budget_seconds,
            )
            return OverBudget(
                f"{name} ran past this server's budget of {self.budget_seconds:g} s of work "
                "for one catalog call (catalog_call_seconds) and returned nothing. Narrow it "
                "(fewer words, more predicates) and call again, or try a different tool."
            )
        log.warning("%s by %s stalled for %g s", name, owner[:14], self.stall_seconds)
        return CatalogStalled(
            f"{name} got no answer from the server's catalog threads within "
            f"{self.stall_seconds:g} s (catalog_call_stall_seconds): the machine or the "
            "server was overloaded or stuck"
        )
