"""Building the taurec MCP server, and running it over stdio or Streamable HTTP.

Either way the server stops gracefully, ending every episode still open (infra_error,
"server shut down") so that no log is left without its end record. Over HTTP, on
SIGTERM or SIGINT: it stops accepting, ends the open listening streams, lets requests in
flight finish, closes the episodes and exits 0. Over stdio, when stdin closes (exit 0),
or on SIGTERM or SIGINT (the episodes are closed, then the signal ends the process).
While it serves, a sweep ends episodes that got no call for `idle_timeout_seconds`.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

import anyio
import anyio.abc
import uvicorn
from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from taurec.catalog.errors import DataError
from taurec.server.http_guard import HttpGuard
from taurec.server.kinds import SERVER_KINDS, KindService
from taurec.server.listening import ListeningServer
from taurec.server.memory import return_large_blocks, trim
from taurec.server.prompt_names import UnknownPromptMiddleware
from taurec.server.raw_calls import OwnerMiddleware
from taurec.server.recommendation.episodes import SimulatorFactory
from taurec.server.request_meta import RequestMetaMiddleware
from taurec.server.seal import CallerMiddleware
from taurec.server.settings import HttpSettings, ServerSettings
from taurec.tasks.stream.protocol import protocol_problem
from taurec.tasks.suite import Suite, load_suite

Transport = Literal["stdio", "http"]
#: Request bytes read in a second after which freed heap pages are given back.
TRIM_AFTER_BYTES = 1024 * 1024
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: Told the one line a person sees when the server is ready (the commands print it on stderr).
Announce = Callable[[str], None]
#: Over stdio, that line when stdin is a terminal (a person typed the command).
STDIO_READY = "stdio server ready; waiting for an MCP client on stdin (Ctrl-C to stop)"


def build_server(
    settings: ServerSettings, *, make_user: SimulatorFactory | None = None
) -> MCPServer:
    """The MCP server for `settings`. Loads the suite now (DataError if it cannot).

    `make_user` replaces the simulated user `settings.simulator` names (tests use it).
    """
    return _assemble(settings, make_user)[0]


def build_server_with_service(
    settings: ServerSettings, suite: Suite, *, make_user: SimulatorFactory | None = None
) -> tuple[MCPServer, KindService]:
    """`build_server` over an already loaded `suite`, with the kind's service (whose
    `close_all` ends every open episode): for in-process environments (clients/envs)."""
    mcp, service, _ = _assemble(settings, make_user, suite)
    return mcp, service


def http_app(mcp: MCPServer, http: HttpSettings, plan_tokens: Sequence[str] = ()) -> HttpGuard:
    """The Streamable HTTP ASGI app of `mcp` (at /mcp) behind the guard (http_guard.py).
    The SDK's own Host/Origin check is given the same names, as a second line, and the
    session limits: `max_sessions` in all, closed after `idle_seconds` idle (the guard
    holds each client to `max_per_client`; see http_sessions.py)."""
    names = [f"[{n}]" if ":" in n else n for n in sorted(http.host_names)]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for n in names for h in (n, f"{n}:*")],
        allowed_origins=[
            f"{scheme}://{n}{port}"
            for n in names
            for scheme in ("http", "https")
            for port in ("", ":*")
        ],
    )
    app = mcp.streamable_http_app(
        host=http.host,
        transport_security=security,
        max_request_body_size=http.max_request_bytes,
        session_idle_timeout=http.sessions.idle_seconds,  # the guard forgets them as well
        max_sessions=http.sessions.max_sessions,
    )
    return HttpGuard(app, http, plan_tokens)


def run_server(
    settings: ServerSettings,
    transport: Transport = "stdio",
    http: HttpSettings | None = None,
    *,
    announce: Announce | None = None,
) -> None:
    """Serve until stopped (see the module docstring). In stdio mode stdout carries only
    protocol messages. `http` applies to the http transport (default: HttpSettings()).
    `announce` hears one line once the server is ready: the URL it listens on (http), or
    STDIO_READY (stdio; the caller passes it only when stdin is a terminal)."""
    if transport == "stdio":
        mcp, service, name = _assemble(settings, None)
        if announce is not None:
            announce(f"{name}: {STDIO_READY}")
        anyio.run(_serve_stdio, mcp, service)
    else:
        server = HttpServer(settings, http or HttpSettings(), announce=announce)
        with _stop_on_signal(server.stop):
            anyio.run(server.serve)


class HttpServer:
    """The server over Streamable HTTP (uvicorn), until SIGTERM or SIGINT (in the main
    thread) or `stop()`: then it stops accepting, ends open listening streams, lets
    requests in flight finish (for at most `http.shutdown_grace_seconds`), and ends every
    episode still open."""

    def __init__(
        self,
        settings: ServerSettings,
        http: HttpSettings,
        *,
        make_user: SimulatorFactory | None = None,
        announce: Announce | None = None,
    ) -> None:
        self.mcp, self.service, name = _assemble(settings, make_user)
        self.http = http
        self.guard = http_app(self.mcp, http, self.service.plan_tokens)
        config = uvicorn.Config(
            self.guard,
            host=http.host,
            port=http.port,
            log_level=settings.log_level.lower(),
            timeout_graceful_shutdown=http.shutdown_grace_seconds,
            http="h11",  # the parser h11_max_incomplete_event_size applies to
            h11_max_incomplete_event_size=http.max_header_bytes,
            limit_concurrency=http.max_connections,
            timeout_keep_alive=http.keep_alive_seconds,
            backlog=http.backlog,
        )

        def listening(base_url: str) -> None:
            if announce is not None:
                announce(f"{name} listening on {base_url}/mcp")

        self._uvicorn = _GracefulServer(config, self.guard, listening)

    @property
    def started(self) -> bool:
        """Whether it accepts connections."""
        return self._uvicorn.started

    @property
    def open_connections(self) -> int:
        """How many client connections it holds open now."""
        return len(self._uvicorn.server_state.connections)

    async def serve(self) -> None:
        return_large_blocks()  # request bodies are unmapped when done (see memory.py)
        try:
            async with anyio.create_task_group() as tg:
                _start_idle_sweep(tg, self.service)
                tg.start_soon(self._give_back_memory)
                await self._uvicorn.serve()
                tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self.service.close_all()

    def stop(self) -> None:
        """Begin the graceful stop (from the server's event loop)."""
        self._uvicorn.should_exit = True

    async def _give_back_memory(self, every: float = 1.0) -> None:
        """Each second that brought request bodies of more than TRIM_AFTER_BYTES, and the
        second after it (their requests may end later), return the heap pages they freed
        (see memory.py)."""
        before = 0
        while True:
            await anyio.sleep(every)
            now = self.guard.take_bytes_read()
            if max(now, before) > TRIM_AFTER_BYTES:
                trim()
            before = now


def _assemble(
    settings: ServerSettings, make_user: SimulatorFactory | None, suite: Suite | None = None
) -> tuple[MCPServer, KindService, str]:
    """The server of the suite's kind (see kinds.py), and its name for people ("taurec
    server (KIND, SUITE)"). Every kind's server knows each request's bearer token (sealed
    runs find the caller's plan by it) and its owner (per-client limits count by it; see
    raw_calls.owner_of); an unknown prompt is a clean MCP error (see prompt_names.py)."""
    suite = suite or load_suite(settings.suite)
    if (problem := protocol_problem(suite.kind, settings.stream_protocol)) is not None:
        raise DataError(problem, field="stream_protocol")
    mcp, service = SERVER_KINDS.get(suite.kind)(settings, suite, make_user)
    mcp.middleware.insert(0, CallerMiddleware())
    mcp.middleware.insert(0, OwnerMiddleware())
    mcp.middleware.insert(0, RequestMetaMiddleware())  # model calls and agent reports
    mcp.middleware.append(UnknownPromptMiddleware(mcp))
    return mcp, service, f"taurec server ({suite.kind}, {settings.suite})"


def _start_idle_sweep(tg: anyio.abc.TaskGroup, service: KindService) -> None:
    """Run the service's sweep of idle episodes, for a kind that has one (the
    recommendation kind's; see Service.sweep_idle)."""
    sweep = getattr(service, "sweep_idle", None)
    if sweep is not None:
        tg.start_soon(sweep)


async def _serve_stdio(mcp: MCPServer, service: KindService) -> None:
    async with anyio.create_task_group() as tg:
        tg.start_soon(_end_on_signal, service)
        _start_idle_sweep(tg, service)
        try:
            await mcp.run_stdio_async()  # returns when stdin closes
        finally:
            with anyio.CancelScope(shield=True):
                await service.close_all()
        tg.cancel_scope.cancel()


async def _end_on_signal(service: KindService) -> None:
    """stdio on SIGTERM or SIGINT: end the open episodes (each once its step in flight has
    finished), then let the signal take its default course. The SDK reads stdin in a
    thread that cancellation cannot interrupt, so waiting for it could take forever."""
    with anyio.open_signal_receiver(*_STOP_SIGNALS) as signals:
        async for received in signals:
            with anyio.CancelScope(shield=True):
                await service.close_all()
            signal.signal(received, signal.SIG_DFL)
            signal.raise_signal(received)


class _GracefulServer(ListeningServer):
    """uvicorn, telling the guard when shutdown begins (before it waits for requests).
    When serve() returns, uvicorn re-raises the signal that stopped it; see
    `_stop_on_signal`."""

    def __init__(
        self, config: uvicorn.Config, guard: HttpGuard, on_listening: Callable[[str], None]
    ) -> None:
        super().__init__(config, on_listening)
        self._guard = guard

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._guard.begin_shutdown()
        await super().shutdown(sockets)


@contextmanager
def _stop_on_signal(stop: Callable[[], None]) -> Iterator[None]:
    """SIGTERM and SIGINT call `stop` (the process's default would kill it, leaving logs
    without an end record). While uvicorn serves, its own handlers take over; when it is
    done it re-raises the signal that stopped it, to this handler: the process then goes
    on to close the episodes and exits 0."""
    saved: dict[signal.Signals, Any] = {}
    try:
        for sig in _STOP_SIGNALS:
            saved[sig] = signal.signal(sig, lambda *_: stop())
    except ValueError:  # not the main thread: uvicorn does not handle signals either
        pass
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
