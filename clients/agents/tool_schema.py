"""MCP tools as function-calling tools (the OpenAI `tools` format litellm takes).

The model sees every episode tool with its MCP description and input schema, minus the
`episode_id` argument: the Episode wrapper adds it to every call, so the model can neither
forget it nor address another episode. Tools the harness owns (starting, listing,
aborting) are not offered at all.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, Final

from mcp_types import Tool

#: Tools the harness calls itself; an LLM contestant is never offered them.
HARNESS_TOOLS: Final = frozenset({"start_episode", "list_tasks", "server_info", "abort_episode"})
#: Arguments the harness fills in on every call.
HIDDEN_ARGUMENTS: Final = frozenset({"episode_id"})


def function_parameters(
    input_schema: dict[str, Any], hidden: frozenset[str] = HIDDEN_ARGUMENTS
) -> dict[str, Any]:
    """`input_schema` without the `hidden` arguments (in `properties` and `required`),
    as an object schema. The input is not modified; `$defs` and the rest are kept."""
    schema = copy.deepcopy(input_schema) if input_schema else {}
    schema.setdefault("type", "object")
    properties = schema.get("properties") or {}
    schema["properties"] = {k: v for k, v in properties.items() if k not in hidden}
    if "required" in schema:
        required = [name for name in schema["required"] if name not in hidden]
        if required:
            schema["required"] = required
        else:
            del schema["required"]
    return schema


def function_tool(tool: Tool, hidden: frozenset[str] = HIDDEN_ARGUMENTS) -> dict[str, Any]:
    """One MCP tool as an OpenAI-style function tool."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description or tool.title or "",
            "parameters": function_parameters(tool.input_schema, hidden),
        },
    }


def function_tools(
    tools: Iterable[Tool],
    *,
    exclude: frozenset[str] = HARNESS_TOOLS,
    hidden: frozenset[str] = HIDDEN_ARGUMENTS,
) -> list[dict[str, Any]]:
    """The tools an LLM contestant is offered: every tool but `exclude`, in server order."""
    return [function_tool(tool, hidden) for tool in tools if tool.name not in exclude]
