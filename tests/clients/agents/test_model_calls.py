"""`Episode.log_model_call`: one line in a custom agent logs a model call; the next tool
call carries it, messages sent before travelling as their sha256 only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from taurec.clients.agents.base import Episode
from taurec.clients.agents.model_calls import ModelCallOutbox, model_call_meta
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.model_calls import sha256_of
from taurec.tasks.trajectory.reader import read_log

SYSTEM = {"role": "system", "content": "Recommend one film."}


def test_a_message_sent_before_travels_as_its_hash() -> None:
    outbox = ModelCallOutbox()
    said = {"role": "assistant", "content": "A comedy?"}
    outbox.add(model="m", messages=[SYSTEM, {"role": "user", "content": "hi"}], output=said)
    first = outbox.take()
    outbox.add(model="m", messages=[SYSTEM, {"role": "user", "content": "hi"}, said])
    second = outbox.take()
    assert first is not None and second is not None and outbox.take() is None
    assert first[0]["input"] == [SYSTEM, {"role": "user", "content": "hi"}]
    assert second[0]["input"] == [
        sha256_of(SYSTEM),
        sha256_of({"role": "user", "content": "hi"}),
        sha256_of(said),
    ]


class Logging:
    label = "logging"

    async def run(self, episode: Episode) -> None:
        messages: list[dict[str, Any]] = [SYSTEM, {"role": "user", "content": episode.opening}]
        episode.log_model_call(
            model="my-model",
            messages=messages,
            output={"role": "assistant", "content": "Nothing fits."},
            usage={"prompt_tokens": 12, "completion_tokens": 3},
        )
        await episode.recommend(None, "Nothing fits.")


def test_a_custom_agent_logs_its_call_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    runner = Runner(Logging(), Connection("inproc", ServerSettings(log_dir=out)), out, "logging")
    anyio.run(runner.run, plan(["t001"], 1))
    (log,) = out.rglob("*.jsonl")
    events = read_log(log).events
    (call,) = [e for e in events if e["type"] == "model_call"]
    assert call["model"] == "my-model" and call["input_messages"] == 2
    assert call["output"]["content"] == "Nothing fits."
    assert call["usage"] == {"prompt_tokens": 12, "completion_tokens": 3}
    recommend = next(e for e in events if e["type"] == "tool_call")
    assert call["seq"] < recommend["seq"] and recommend["name"] == "recommend"


async def test_a_custom_loop_logs_a_model_call_in_one_line(tmp_path: Path) -> None:
    server = build_server(ServerSettings(log_dir=tmp_path, run_label="own-loop"))
    async with Client(server) as client:
        started = await client.call_tool("start_episode", {"task_id": "t001"})
        episode_id = (started.structured_content or {})["episode_id"]
        sent = [{"role": "user", "content": started.structured_content["opening"]}]
        reply = {"role": "assistant", "content": "What are you in the mood for?"}
        meta = model_call_meta(model="my-model", messages=sent, output=reply)
        await client.call_tool("get_user_history", {"episode_id": episode_id}, meta=meta)
    (path,) = tmp_path.rglob("*.jsonl")
    events = read_log(path).events
    (call,) = [e for e in events if e["type"] == "model_call"]
    assert call["model"] == "my-model"
    assert events[events.index(call) + 1]["type"] == "tool_call"
