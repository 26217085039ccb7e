"""Requests per second per client over HTTP, so that no client can keep the event loop
busy with a flood of requests, cheap or refused ones included, while others wait.

Each client (its owner, see raw_calls.owner_of) has a token bucket: it holds at most
`burst` tokens, refills at `per_second` tokens a second, and starts full. A request takes
one token; a request that finds less than one is refused before its body is read or the
MCP SDK sees it (`RequestRate.take` answers how long until a token is there; the guard
answers 429 with that as Retry-After). So a client may send `burst` requests at once,
and `per_second` a second for as long as it likes.

The table of buckets is bounded, so that many clients cannot fill it:

- a bucket that has had time to refill is the same as a new one, so a client idle for
  `burst / per_second` seconds is dropped; the table is kept in order of last use, so
  only its oldest entries are looked at;
- beyond `max_clients` buckets the least recently used one is dropped: its client starts
  again with a full bucket, one burst more than it would have had.

A small bucket of our own rather than a library: `limits` (and slowapi, built on it)
counts windows in a memory store that a timer thread expires, with no cap on its keys;
aiolimiter is one bucket that makes callers wait rather than refusing them.
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

from taurec.server.defaults import REQUEST_BURST, REQUESTS_PER_SECOND

Clock = Callable[[], float]

#: Buckets held at most (about 100 bytes each); past it the least recently used goes.
MAX_CLIENTS: Final = 100_000

log = logging.getLogger(__name__)


class RateLimits(BaseModel):
    """How many requests one client may send over HTTP (HttpSettings.rate)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    per_second: float = Field(
        default=REQUESTS_PER_SECOND,
        gt=0,
        le=1_000_000,
        description="Requests one client (its known bearer token, else its address) may "
        "send a second, on average; beyond it (and its burst) a request gets 429.",
    )
    burst: int = Field(
        default=REQUEST_BURST,
        ge=1,
        le=1_000_000,
        description="Requests one client may send at once, above its steady rate, after "
        "being quiet for a while (the size of its token bucket).",
    )


class TooManyRequests(Exception):
    """A client sent a request over its rate; the message names the limit and what to do.
    `retry_after`: whole seconds until it may send one again (at least 1)."""

    def __init__(self, limits: RateLimits, wait: float) -> None:
        super().__init__(
            f"this client sent more than {limits.per_second:g} requests a second (bursts of "
            f"{limits.burst}), this server's limit per client (taurec serve "
            "--requests-per-second, --request-burst; a client is its bearer token, or "
            "without one its address): wait for Retry-After seconds, then send fewer "
            "requests at once"
        )
        self.retry_after = max(1, math.ceil(wait))


@dataclass(slots=True)
class _Bucket:
    tokens: float  # as of `last`
    last: float  # when a request of this client last came
    refused: bool = False  # its last request was refused (logged once per run of them)


class RequestRate:
    """A token bucket per client (see the module docstring)."""

    def __init__(
        self, limits: RateLimits, max_clients: int = MAX_CLIENTS, clock: Clock = time.monotonic
    ) -> None:
        self.limits = limits
        self.max_clients = max_clients
        self._clock = clock
        self._refill_seconds = limits.burst / limits.per_second  # from empty to full
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()  # least recently used first

    def __len__(self) -> int:
        """Clients held now (those whose buckets have refilled dropped first)."""
        self._drop_refilled(self._clock())
        return len(self._buckets)

    def take(self, owner: str) -> None:
        """Take one token of `owner` for a request; TooManyRequests (taking nothing) when
        it has less than one."""
        now = self._clock()
        self._drop_refilled(now)
        limits = self.limits
        bucket = self._buckets.get(owner)
        if bucket is None:
            if len(self._buckets) >= self.max_clients:
                self._buckets.popitem(last=False)
            bucket = self._buckets[owner] = _Bucket(float(limits.burst), now)
        else:
            self._buckets.move_to_end(owner)
            elapsed = now - bucket.last
            bucket.tokens = min(float(limits.burst), bucket.tokens + elapsed * limits.per_second)
            bucket.last = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            bucket.refused = False
            return
        if not bucket.refused:
            log.info("requests of %s over its rate of %g a second", owner, limits.per_second)
            bucket.refused = True
        raise TooManyRequests(limits, (1 - bucket.tokens) / limits.per_second)

    def _drop_refilled(self, now: float) -> None:
        """Drop the clients whose buckets are full again (they are the oldest entries: a
        bucket never holds less than nothing, so one unused for the refill time is full)."""
        buckets = self._buckets
        while buckets:
            owner = next(iter(buckets))
            if now - buckets[owner].last < self._refill_seconds:
                return
            del buckets[owner]
