"""Catalog work off the event loop: a pool of threads, a share per client, a time budget.

A search over a large catalog takes tens of milliseconds of CPU; run on the event loop,
a client sending many of them delays every other client's every call. So searches and
filters run in a pool of `workers` threads (the cores: BM25 scoring and the filter's
column masks are numpy, which releases the GIL for most of their time), and:

- one client (`request_owner()`: its bearer token, its plan) holds at most `per_client`
  threads at once (queued or running); its further calls wait for one of its own, so
  a client with many heavy calls in flight cannot take every thread from the others;
- a call gets `budget_seconds`, its wait for a thread included. Past it the caller gets
  `OverBudget` (an agent-facing error) at once; work already running finishes in its
  thread, still holding the client's share, and its result is dropped.

Point lookups (one item, the user's history) stay on the loop: they take microseconds,
less than a thread hop, and so never queue behind a search.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
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


class CatalogWorkers:
    """The threads catalog calls run in, shared fairly between clients."""

    def __init__(self, workers: int, per_client: int, budget_seconds: float) -> None:
        self.workers = workers
        self.per_client = min(per_client, workers)
        self.budget_seconds = budget_seconds
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
        return cls(workers, per_client, settings.catalog_call_seconds)

    def in_use(self, owner: str) -> int:
        """Threads `owner` holds now (its calls queued or running, abandoned ones too)."""
        share = self._shares.get(owner)
        return 0 if share is None else int(share.borrowed_tokens)

    async def run(self, owner: str, name: str, work: Callable[[], T]) -> T:
        """`work()` in a thread, as `owner`'s; OverBudget past the budget."""
        share = self._shares.get(owner)
        if share is None:
            share = self._shares[owner] = anyio.CapacityLimiter(self.per_client)
        holder = object()  # this call, as the borrower of its share's token
        loop = asyncio.get_running_loop()
        finished = anyio.Event()
        future: Future[T] | None = None

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
            with anyio.move_on_after(self.budget_seconds):
                await share.acquire_on_behalf_of(holder)
                future = self._threads.submit(work)
                future.add_done_callback(done)
                await finished.wait()
                return future.result()
        if future is not None:
            future.cancel()  # if it has not started, it never will (and `done` frees it)
        log.warning(
            "%s by %s ran past its %g s budget; its result is dropped",
            name,
            owner[:14],
            self.budget_seconds,
        )
        raise OverBudget(
            f"{name} ran past this server's time budget of {self.budget_seconds:g} s for one "
            "catalog call (catalog_call_seconds) and returned nothing. Narrow it (fewer "
            "words, more predicates) and call again, or try a different tool."
        )
