"""The ranking MCP server: its tools, their argument names, logs and the budget's end."""

from __future__ import annotations

from pathlib import Path

from mcp import Client
from support.ranking import write_ranking_suite

from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log


def _server(tmp_path: Path):
    suite = str(write_ranking_suite(tmp_path / "suite", n=2))
    return build_server(
        ServerSettings(suite=suite, log_dir=tmp_path / "logs", run_label="r")
    ), suite


async def test_the_server_offers_the_papers_seven_tools_and_submit_ranking(tmp_path: Path):
    server, _ = _server(tmp_path)
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {
        "start_episode", "get_user_profile", "item_info_search", "candidates_analyze",
        "get_session_behavior", "get_rating_behavior", "get_similar_items",
        "get_similar_users", "submit_ranking", "abort_episode",
    }  # fmt: skip
    assert set(tools["item_info_search"].input_schema["properties"]) == {"episode_id", "item_name"}
    assert set(tools["get_similar_items"].input_schema["properties"]) == {
        "episode_id",
        "item_title",
    }


async def test_the_eleventh_call_ends_the_logged_episode_as_over_budget(tmp_path: Path):
    server, suite = _server(tmp_path)
    task = load_suite(suite).tasks[0]
    async with Client(server) as client:
        started = await client.call_tool("start_episode", {"task_id": task.id})
        episode_id = started.structured_content["episode_id"]
        for _ in range(10):
            result = await client.call_tool("get_user_profile", {"episode_id": episode_id})
            assert not result.is_error
        last = await client.call_tool("get_user_profile", {"episode_id": episode_id})
        after = await client.call_tool("get_user_profile", {"episode_id": episode_id})
    assert "past the budget of 10" in last.content[0].text
    assert after.is_error and "has ended (max_turns)" in after.content[0].text
    (log,) = (tmp_path / "logs").rglob("*.jsonl")
    parsed = read_log(log)
    assert parsed.header is not None and parsed.header.kind == "ranking"
    assert parsed.events[-1]["type"] == "end" and parsed.events[-1]["reason"] == "max_turns"


async def test_an_unknown_task_is_a_tool_error_naming_the_suite(tmp_path: Path):
    server, _ = _server(tmp_path)
    async with Client(server) as client:
        result = await client.call_tool("start_episode", {"task_id": "nope"})
    assert result.is_error and "unknown task_id 'nope'" in result.content[0].text
