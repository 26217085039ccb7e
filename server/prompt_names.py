"""A `prompts/get` for a prompt the server does not have is a clean MCP error.

The SDK answers it with "Internal server error" and logs a full traceback on the
server's stderr, once per request (MCP conformance suites ask for demo prompts by name).
This middleware answers first: an invalid-params error naming the prompt and the ones
the server has, and nothing on stderr. An unknown resource already is such an error.
"""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from taurec.tasks.errors import short_repr


class UnknownPromptMiddleware:
    """Refuses `prompts/get` for a name `mcp` has no prompt by (see the module docstring)."""

    def __init__(self, mcp: MCPServer) -> None:
        self._mcp = mcp

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method != "prompts/get":
            return await call_next(ctx)
        name = (ctx.params or {}).get("name")
        known = sorted(p.name for p in await self._mcp.list_prompts())
        if name not in known:
            has = f"this server's prompts: {', '.join(known)}" if known else "it has none"
            raise MCPError(
                code=INVALID_PARAMS, message=f"Unknown prompt: {short_repr(name)} ({has})"
            )
        return await call_next(ctx)
