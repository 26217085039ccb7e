"""The MCP surface of recommendation suites (τ-Rec): episodes with a simulated user, the
catalog tools, the resources, and recommend."""

from __future__ import annotations

from typing import cast

from mcp.server import MCPServer

from taurec.server.kinds import SERVER_KINDS, KindService
from taurec.server.raw_calls import RawCallMiddleware
from taurec.server.recommendation.episodes import SimulatorFactory
from taurec.server.recommendation.resources import protocol_text, register_resources
from taurec.server.recommendation.service import Service
from taurec.server.recommendation.tools import register_tools
from taurec.server.run_facts import SERVER_NAME
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import Suite


@SERVER_KINDS.register("recommendation")
def recommendation_server(
    settings: ServerSettings, suite: Suite, make_user: object | None
) -> tuple[MCPServer, KindService]:
    """The τ-Rec surface: episodes with a simulated user, catalog tools, recommend."""
    service = Service.create(settings, cast("SimulatorFactory | None", make_user), suite)
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
    return mcp, service
