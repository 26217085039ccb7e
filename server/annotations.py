"""The MCP tool annotations every kind's tools carry: read-only lookups, conversation
turns, and the committing call that ends an episode."""

from __future__ import annotations

from typing import Final

from mcp_types import ToolAnnotations

READ_ONLY: Final = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
CONVERSATION: Final = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
COMMITTING: Final = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)
