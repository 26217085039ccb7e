"""HTTP to an outside contestant (a CRS, an A2A agent), bounded in time and in size.

A contestant is another party's server: it may never answer, answer one byte at a time,
or answer without end. Every call taurec makes to one (the CRS health check and replies,
the A2A agent card and messages) goes through `contestant_client`, whose transport stops
reading a body past its byte cap (ResponseTooLarge, raised while streaming, so at most
the cap and one chunk are held), and is wrapped by its caller in a total deadline
(anyio.fail_after): httpx's own timeouts bound each connect and each read only, and a
server that dribbles its headers or body never trips them. Bodies are asked for without
compression and a compressed one is refused, so the cap counts the bytes actually held.
The limits are the constants below (docs/contestants.md, "Limits").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final

import httpx

#: Seconds to open a connection to a contestant.
CONNECT_TIMEOUT: Final = 10.0
#: Seconds, in all, for a check made before the run starts (CRS health check, agent card).
STARTUP_TIMEOUT: Final = 10.0
#: Seconds, in all, a CRS may take over one reply (neural CRSs on a CPU are slow).
CRS_REPLY_TIMEOUT: Final = 120.0
#: Seconds, in all, an A2A agent may take over one episode (it replies when it is done).
A2A_EPISODE_TIMEOUT: Final = 900.0
#: The largest A2A agent card read.
MAX_CARD_BYTES: Final = 1_000_000
#: The largest answer read to one message (a CRS reply, an A2A agent's reply).
MAX_REPLY_BYTES: Final = 1_000_000
#: The longest detail quoted from a failure (the rest of a hostile message is dropped).
MAX_DETAIL_CHARS: Final = 300


class ResponseTooLarge(httpx.ReadError):
    """A contestant's answer passed its byte cap; reading stopped there."""

    def __init__(self, url: str, limit: int, request: httpx.Request | None = None) -> None:
        super().__init__(
            f"the answer from {url} is larger than {limit} bytes (reading stopped there)",
            request=request,
        )
        self.limit = limit


class CompressedResponse(httpx.ReadError):
    """A contestant answered with a compressed body although none was asked for."""


class _CappedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, request: httpx.Request, limit: int) -> None:
        self._inner = inner
        self._request = request
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise ResponseTooLarge(str(self._request.url), self._limit, self._request)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx.AsyncBaseTransport):
    """An httpx transport whose response bodies stop at `limit` bytes (ResponseTooLarge
    from the read that passes it) and are never compressed (CompressedResponse)."""

    def __init__(self, limit: int, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.limit = limit
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            await response.aclose()
            raise CompressedResponse(
                f"{request.url} answered a {encoding!r}-encoded body although none was asked for",
                request=request,
            )
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_CappedStream(response.stream, request, self.limit),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def contestant_client(
    *, read_timeout: float, max_bytes: int, inner: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """An HTTP client for calls to a contestant: CONNECT_TIMEOUT to connect, `read_timeout`
    per read, bodies cut at `max_bytes`, no compression, no redirects. The caller adds the
    total deadline. `inner` replaces the network transport (tests)."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(read_timeout, connect=CONNECT_TIMEOUT),
        transport=CappedTransport(max_bytes, inner),
        headers={"accept-encoding": "identity"},
        follow_redirects=False,
    )


def one_line(text: object) -> str:
    """`text` as one line of at most MAX_DETAIL_CHARS (what a contestant sent may be long
    or hold line breaks)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= MAX_DETAIL_CHARS else flat[: MAX_DETAIL_CHARS - 1] + "…"


def root_cause(exc: BaseException) -> BaseException:
    """The innermost exception `exc` was raised from (libraries wrap httpx's errors)."""
    seen = {id(exc)}
    while (inner := exc.__cause__ or exc.__context__) is not None and id(inner) not in seen:
        seen.add(id(inner))
        exc = inner
    return exc


def failure_detail(exc: BaseException) -> str:
    """One line saying what went wrong on a call to a contestant, from the innermost
    cause (a too large or compressed answer, a timeout, a refused connection)."""
    cause = root_cause(exc)
    if isinstance(cause, ResponseTooLarge | CompressedResponse):
        return one_line(cause)
    if isinstance(cause, httpx.ConnectTimeout):
        return f"no connection within {CONNECT_TIMEOUT:g} s"
    if isinstance(cause, httpx.TimeoutException):
        return f"nothing arrived within the read timeout ({type(cause).__name__})"
    return one_line(f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__)
