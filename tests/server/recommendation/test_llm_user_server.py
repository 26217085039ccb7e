"""The LLM simulated user behind the real MCP server (the model is mocked): the log names
it, its leak guard's counters land in the end record, and no logged reply leaks."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
from mcp import Client

from taurec.server.app import build_server
from taurec.server.recommendation.simulator.leak_guard import LeakGuard
from taurec.server.recommendation.simulator.llm_user import LLMUserSettings, llm_users
from taurec.server.recommendation.simulator.phrasing import describe
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.constraint import Reveal
from taurec.tasks.suite import load_suite

SUITE = load_suite("builtin")
TASK = next(
    t for t in SUITE.tasks if t.constraints_by(Reveal.HIDDEN) and not t.no_valid_recommendation
)


class Blabbermouth:
    """A mocked model whose every reply states the task's first hidden constraint."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, **kwargs: Any) -> Any:
        self.calls += 1
        text = f"Honestly, {describe(TASK.constraints_by(Reveal.HIDDEN)[0])}."
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=text))],
            usage=SimpleNamespace(prompt_tokens=20, completion_tokens=5),
        )


async def test_a_leaking_llm_user_is_caught_logged_and_replaced(tmp_path: Path) -> None:
    model = Blabbermouth()
    llm = LLMUserSettings(
        model="openai/test", cache_dir=None, completion=model, max_regenerations=1
    )
    server = build_server(
        ServerSettings(log_dir=tmp_path, run_label="llm"), make_user=llm_users(SUITE.catalog, llm)
    )
    async with Client(server) as client:
        started = await client.call_tool("start_episode", {"task_id": TASK.id})
        eid = (started.structured_content or {})["episode_id"]
        for text in ("What are you in the mood for?", "How long should it be?"):
            await client.call_tool("send_message", {"episode_id": eid, "text": text})
        await client.call_tool("recommend", {"episode_id": eid, "item_id": None})
    (log,) = tmp_path.rglob("*.jsonl")
    lines = [orjson.loads(x) for x in log.read_bytes().splitlines()]
    header, end = lines[0], lines[-1]
    assert header["simulator"]["kind"] == "llm-single"
    stats = end["simulator"]
    assert model.calls >= 2 and stats["leaks"] >= 1 and stats["fallbacks"] >= 1
    assert stats["prompt_tokens"] == 20 * stats["llm_calls"]
    guard = LeakGuard(TASK)
    replies = [x["text"] for x in lines if x.get("type") == "user_message"]
    assert len(replies) >= 3 and all(guard.clean(r) for r in replies)
