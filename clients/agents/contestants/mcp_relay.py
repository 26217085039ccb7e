"""One episode served over Streamable HTTP on loopback, for agents that speak MCP
themselves (an A2A agent gets this URL).

The relay lists the episode tools the harness's own agents use (send_message,
search_catalog, ..., recommend, abort_episode) and passes each call to the benchmark's
server through the run's client session, bound to this one episode: the episode_id is
always set to it, so the relay cannot start, see or touch another episode. The calls reach
the server exactly as a built-in agent's would, and are logged and scored the same way.

Each relay's path holds a secret (`/mcp/<token>`): any process on the machine can reach
127.0.0.1, so an agent handed one episode's relay that found another relay's port (two
episodes run at once) still cannot call the other episode's tools.
"""

from __future__ import annotations

import secrets
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, Final

import anyio
import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server

from taurec.clients.agents.base import Episode, EpisodeEndedError

#: Tools an agent may not reach through the relay (the harness starts the episode).
HARNESS_ONLY: Final = frozenset({"start_episode", "list_tasks"})
PATH: Final = "/mcp"
#: Seconds to wait for the relay to listen (catches a hang, not a slow machine).
START_TIMEOUT: Final = 30.0
#: Seconds the relay waits for requests still open when its episode is over: an agent
#: holding a request open (a body it never finishes sending) cannot keep the relay up.
STOP_TIMEOUT: Final = 2


def relayed_tools(tools: list[types.Tool]) -> list[types.Tool]:
    """The episode tools of the server (those taking an episode_id), minus HARNESS_ONLY."""
    return [
        t
        for t in tools
        if t.name not in HARNESS_ONLY and "episode_id" in (t.input_schema.get("properties") or {})
    ]


def relay_server(episode: Episode) -> Server[Any]:
    """The MCP server relaying `episode`'s tools (see the module docstring)."""
    tools = relayed_tools(episode.tools)
    names = {t.name for t in tools}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in names:
            return _error(
                f"unknown tool {params.name!r}; expected one of {', '.join(sorted(names))}"
            )
        try:
            return await episode.call_raw(params.name, dict(params.arguments or {}))
        except EpisodeEndedError as exc:
            return _error(str(exc))

    return Server("taurec-episode-relay", on_list_tools=list_tools, on_call_tool=call_tool)


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


class _Uvicorn(uvicorn.Server):
    """Leaves the process's signal handlers to the run (Ctrl-C stops the run, not a relay)."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@asynccontextmanager
async def serve_relay(episode: Episode) -> AsyncIterator[str]:
    """Serve the relay of `episode` on 127.0.0.1 (a port the OS picks) for the duration of
    the block, in this event loop; yields its URL (http://127.0.0.1:PORT/mcp/<token>)."""
    path = f"{PATH}/{secrets.token_urlsafe(24)}"
    app = relay_server(episode).streamable_http_app(streamable_http_path=path, stateless_http=True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", timeout_graceful_shutdown=STOP_TIMEOUT
    )
    server = _Uvicorn(config)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        with anyio.fail_after(START_TIMEOUT):
            while not server.started:
                await anyio.sleep(0.005)
        try:
            yield f"http://127.0.0.1:{port}{path}"
        finally:
            server.should_exit = True
    sock.close()
