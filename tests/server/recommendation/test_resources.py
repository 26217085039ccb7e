"""Resources, the contestant prompt, and the rule that nothing reachable leaks a task's needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from mcp import Client
from mcp.server import MCPServer

from taurec.policies.document import policy_text
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.constraint import Reveal
from taurec.tasks.suite import load_suite

SUITE = load_suite("builtin")


def _server(tmp_path: Path, **kw: Any) -> MCPServer:
    return build_server(ServerSettings(log_dir=tmp_path, run_label="test", **kw))


async def _read(client: Client, uri: str) -> str:
    contents = (await client.read_resource(uri)).contents
    return "".join(getattr(c, "text", "") for c in contents)


async def test_the_policy_resource_is_the_policy_document(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        assert await _read(client, "taurec://policy") == policy_text()


async def test_the_catalog_schema_resource_holds_item_and_filter_schemas(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        schema = json.loads(await _read(client, "taurec://catalog/schema"))
    assert "content_rating" in schema["item"]["properties"]
    assert "genres_any" in schema["filter"]["properties"]


async def test_the_tasks_resource_equals_list_tasks(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        listed = (await client.call_tool("list_tasks", {})).structured_content
        assert json.loads(await _read(client, "taurec://tasks")) == listed


async def test_list_tasks_gives_ids_and_strata_only(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        listed = (await client.call_tool("list_tasks", {})).structured_content
    assert listed is not None
    assert [t["id"] for t in listed["tasks"]] == [t.id for t in SUITE.tasks]
    # trials_left is for sealed runs only (see tests/server/test_sealed.py)
    assert all(
        set(t) - {"trials_left"} == {"id", "complexity", "reveal_difficulty"}
        and t.get("trials_left") is None
        for t in listed["tasks"]
    )


async def test_the_contestant_prompt_gives_the_protocol_and_the_policy(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        prompt = await client.get_prompt("contestant", {"task_id": "t007"})
    assert prompts == ["contestant"]
    text = "".join(getattr(m.content, "text", "") for m in prompt.messages)
    assert "start_episode(task_id='t007')" in text and "recommend" in text
    assert policy_text() in text


def _secrets() -> list[tuple[str, str]]:
    """(task id, text) pairs no agent-reachable surface may contain."""
    out = []
    for task in SUITE.tasks:
        out.append((task.id, task.persona))
        out += [(task.id, pref) for pref in task.soft_preferences]
        for c in task.constraints:
            if c.reveal is not Reveal.VOLUNTEER:
                out.append((task.id, orjson.dumps(c.model_dump(mode="json")).decode()))
    return out


async def test_nothing_an_agent_can_reach_reveals_a_tasks_needs(tmp_path: Path) -> None:
    surfaces: list[str] = []
    async with Client(_server(tmp_path)) as client:
        surfaces.append((await client.list_tools()).model_dump_json())
        for uri in ("taurec://policy", "taurec://catalog/schema", "taurec://tasks"):
            surfaces.append(await _read(client, uri))
        surfaces.append((await client.get_prompt("contestant", {})).model_dump_json())
        surfaces.append(client.instructions or "")
        for name in ("list_tasks", "server_info"):
            surfaces.append((await client.call_tool(name, {})).model_dump_json())
        for task in SUITE.tasks:  # errors, starts and ends of every task's episode
            started = await client.call_tool("start_episode", {"task_id": task.id})
            eid = (started.structured_content or {})["episode_id"]
            for name, args in (
                ("recommend", {"item_id": "nope"}),
                ("check_content_preference", {"item_id": "syn_000001"}),
                ("recommend", {"item_id": None}),
                ("get_item", {"item_id": "syn_000001"}),
            ):
                result = await client.call_tool(name, {"episode_id": eid, **args})
                payload = dict(result.structured_content or {})
                payload.pop("user_reaction", None)  # the user's own words may, by design
                surfaces.append(json.dumps(payload) if not result.is_error else str(result.content))
    everything = "\n".join(surfaces)
    for task_id, secret in _secrets():
        assert secret not in everything, f"{task_id}: {secret[:60]!r} is reachable"
    for key in ('"persona"', '"constraints"', '"soft_preferences"', '"reveal"'):
        assert key not in everything
