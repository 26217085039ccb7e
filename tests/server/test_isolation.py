"""Many episodes on one server: no cross-talk; an abandoned one is reported incomplete."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import Client

from taurec.evaluator.logs import Resolver, score_paths
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.reader import read_log

N = 50


async def _episode(client: Client, k: int, out: dict[str, tuple[str, str]]) -> None:
    task_id = f"t{1 + k % 60:03d}"
    started = await client.call_tool(
        "start_episode", {"task_id": task_id, "trial": k, "agent_label": f"agent-{k}"}
    )
    eid = (started.structured_content or {})["episode_id"]
    for text in (f"Hello from agent {k}", f"Anything else, user {k}?"):
        reply = await client.call_tool("send_message", {"episode_id": eid, "text": text})
        if (reply.structured_content or {}).get("episode_ended"):
            out[eid] = (task_id, "ended")
            return
    page = await client.call_tool("filter_catalog", {"episode_id": eid, "limit": 60})
    item = (page.structured_content or {})["items"][k]["id"]
    done = await client.call_tool("recommend", {"episode_id": eid, "item_id": item})
    assert (done.structured_content or {})["committed"] == item
    out[eid] = (task_id, item)


async def test_fifty_concurrent_episodes_do_not_cross_talk(tmp_path: Path) -> None:
    server = build_server(ServerSettings(log_dir=tmp_path, run_label="many"))
    played: dict[str, tuple[str, str]] = {}
    async with anyio.create_task_group() as tg:
        for k in range(N):

            async def one(k: int = k) -> None:
                async with Client(server) as client:
                    await _episode(client, k, played)

            tg.start_soon(one)
    logs = sorted(tmp_path.rglob("*.jsonl"))
    assert len(logs) == len(played) == N
    for path in logs:
        parsed = read_log(path)
        assert parsed.ok, parsed.problems
        header = parsed.header
        assert header is not None and header.episode_id[:12] in path.name
        task_id, item = played[header.episode_id]
        k = int(header.agent.label.removeprefix("agent-"))
        assert (header.task_id, header.trial) == (task_id, k)
        calls = [e for e in parsed.events if e["type"] == "tool_call"]
        assert all(c["arguments"]["episode_id"] == header.episode_id for c in calls)
        said = [e["text"] for e in parsed.events if e["type"] == "agent_message"]
        assert all(text.endswith(str(k)) or f" {k}?" in text for text in said)
        end = parsed.events[-1]
        assert end["type"] == "end"
        if item != "ended":
            assert end["item_id"] == item


async def test_an_abandoned_episode_is_scored_as_incomplete(tmp_path: Path) -> None:
    server = build_server(ServerSettings(log_dir=tmp_path, run_label="crash"))
    async with Client(server) as client:
        started = await client.call_tool("start_episode", {"task_id": "t001"})
        eid = (started.structured_content or {})["episode_id"]
        await client.call_tool("send_message", {"episode_id": eid, "text": "Hi there"})
        await client.call_tool("get_user_history", {"episode_id": eid})
    # the agent vanished (or the server died): the log has no end record
    (score,) = score_paths([tmp_path], Resolver())
    assert score.infra_error
    assert any("incomplete" in problem for problem in score.problems)
