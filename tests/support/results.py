"""Reading MCP tool results in tests: a success's structured content, an error's text."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult


def ok(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful result (fails the test on an error)."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    """The text of an error result (fails the test on a success)."""
    assert result.is_error, result.structured_content
    return "\n".join(getattr(block, "text", "") for block in result.content)
