"""Building the taurec MCP server, and running it over stdio or Streamable HTTP."""

from __future__ import annotations

from typing import Literal

from mcp.server import MCPServer

from .episodes import SimulatorFactory
from .raw_calls import RawCallMiddleware
from .resources import protocol_text, register_resources
from .service import SERVER_NAME, Service
from .settings import ServerSettings
from .tools import register_tools

Transport = Literal["stdio", "http"]


def build_server(
    settings: ServerSettings, *, make_user: SimulatorFactory | None = None
) -> MCPServer:
    """The MCP server for `settings`. Loads the suite now (DataError if it cannot).

    `make_user` replaces the simulated user `settings.simulator` names (tests use it).
    """
    service = Service.create(settings, make_user)
    mcp: MCPServer = MCPServer(
        SERVER_NAME,
        title="taurec: agentic recommendation benchmark",
        version=service.version,
        instructions=protocol_text(settings.task, bound=settings.bound)
        + "\nRead the policy (resource taurec://policy) before you start.",
        log_level=settings.log_level,
    )
    arguments = register_tools(mcp, service)
    register_resources(mcp, service)
    mcp.middleware.append(RawCallMiddleware(arguments, service.log_rejected))
    return mcp


def run_server(
    settings: ServerSettings,
    transport: Transport = "stdio",
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
) -> None:
    """Serve until interrupted. In stdio mode stdout carries only protocol messages."""
    mcp = build_server(settings)
    if transport == "stdio":
        mcp.run("stdio")
    else:
        mcp.run("streamable-http", host=host, port=port)
