"""The MCP surface of each task kind: how a server for a suite of that kind is built.

A kind registers one `SurfaceFactory` with `@SERVER_KINDS.register(kind)`; `build_server`
and the HTTP server ask this registry for the suite's kind and never test its name.
"""

from __future__ import annotations

from typing import Protocol

from mcp.server import MCPServer

from taurec.server.settings import ServerSettings
from taurec.tasks.kinds import KindRegistry
from taurec.tasks.suite import Suite


class KindService(Protocol):
    """What shared server code needs of a kind's service: its version, the tokens of the
    sealed-run plans it serves (for the HTTP guard), and a way to end every open episode
    when the server stops."""

    version: str

    @property
    def plan_tokens(self) -> list[str]: ...

    async def close_all(self) -> object: ...


class SurfaceFactory(Protocol):
    """Build the MCP server (tools, resources) and its service for a loaded suite.
    `make_user` replaces the simulated user where the kind has one (tests use it)."""

    def __call__(
        self, settings: ServerSettings, suite: Suite, make_user: object | None
    ) -> tuple[MCPServer, KindService]: ...


SERVER_KINDS: KindRegistry[SurfaceFactory] = KindRegistry(
    "MCP server",
    (
        "taurec.server.recommendation.app",
        "taurec.server.ranking.app",
        "taurec.server.ranking.ppr",
        "taurec.server.stream.app",
    ),
)
