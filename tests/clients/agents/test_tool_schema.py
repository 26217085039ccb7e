"""MCP tools as function-calling tools: episode_id hidden, required fields kept."""

from __future__ import annotations

from pathlib import Path

from mcp import Client
from mcp_types import Tool

from taurec.clients.agents.tool_schema import (
    HARNESS_TOOLS,
    function_parameters,
    function_tool,
    function_tools,
)
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings


async def _server_tools(tmp_path: Path, **kw: object) -> list[Tool]:
    server = build_server(ServerSettings(log_dir=tmp_path, **kw))
    async with Client(server) as client:
        return (await client.list_tools()).tools


async def test_every_episode_tool_is_offered_and_the_harness_tools_are_not(
    tmp_path: Path,
) -> None:
    tools = await _server_tools(tmp_path)
    offered = {t["function"]["name"] for t in function_tools(tools)}
    assert offered == {t.name for t in tools} - HARNESS_TOOLS
    assert "recommend" in offered and "send_message" in offered


async def test_episode_id_is_hidden_and_required_fields_are_kept(tmp_path: Path) -> None:
    offered = function_tools(await _server_tools(tmp_path))
    for tool in offered:
        parameters = tool["function"]["parameters"]
        assert parameters["type"] == "object"
        assert "episode_id" not in parameters["properties"]
        assert "episode_id" not in parameters.get("required", [])
    by_name = {t["function"]["name"]: t["function"] for t in offered}
    # τ-Rec's shape: recommend() without item_id abstains, so nothing is required
    assert "item_id" in by_name["recommend"]["parameters"]["properties"]
    assert "required" not in by_name["recommend"]["parameters"]
    assert by_name["send_message"]["parameters"]["required"] == ["text"]
    assert "required" not in by_name["get_user_history"]["parameters"]  # nothing left
    assert "$defs" in by_name["filter_catalog"]["parameters"]  # references still resolve
    assert by_name["recommend"]["description"].startswith("Commit your recommendation")


async def test_bound_mode_schemas_look_the_same(tmp_path: Path) -> None:
    unbound = function_tools(await _server_tools(tmp_path / "a"))
    bound = function_tools(await _server_tools(tmp_path / "b", task="t001"))
    assert unbound == bound


def test_the_input_schema_is_not_modified() -> None:
    schema = {
        "type": "object",
        "properties": {"episode_id": {"type": "string"}, "q": {"type": "string"}},
        "required": ["episode_id", "q"],
    }
    tool = Tool(name="t", input_schema=schema)
    assert function_tool(tool)["function"]["parameters"]["required"] == ["q"]
    assert schema["required"] == ["episode_id", "q"]


def test_an_empty_schema_becomes_an_object_schema() -> None:
    assert function_parameters({}) == {"type": "object", "properties": {}}
