"""`Episode.log_model_call`: one line in a custom agent logs a model call; the next tool
call carries it, messages sent before travelling as their sha256 only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from taurec.clients.agents.base import Episode
from taurec.clients.agents.model_calls import ModelCallOutbox, ModelCallRecorder, model_call_meta
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


async def test_a_recorder_names_the_model_at_the_start_and_logs_each_call_once(
    tmp_path: Path,
) -> None:
    server = build_server(ServerSettings(log_dir=tmp_path, run_label="recorded"))
    calls = ModelCallRecorder(kind="my-loop", model="my-model", settings={"temperature": 0})
    async with Client(server) as client:
        started = await client.call_tool("start_episode", {"task_id": "t001"}, meta=calls.meta())
        episode_id = (started.structured_content or {})["episode_id"]
        sent = [SYSTEM, {"role": "user", "content": started.structured_content["opening"]}]
        reply = {"role": "assistant", "content": "What are you in the mood for?"}
        calls.record(
            messages=sent, output=reply, usage={"prompt_tokens": 9, "completion_tokens": 7}
        )
        await client.call_tool("get_user_history", {"episode_id": episode_id}, meta=calls.meta())
        assert calls.meta() is None  # nothing left to send
        calls.record(messages=[*sent, reply], output={"role": "assistant", "content": "Bye."})
        args = {"episode_id": episode_id, "reason": "agent_error", "detail": "done"}
        await client.call_tool("abort_episode", args, meta=calls.meta())
    (path,) = tmp_path.rglob("*.jsonl")
    log = read_log(path)
    assert log.header is not None and log.header.agent.model == "my-model"
    assert log.header.agent.kind == "my-loop"
    logged = [e for e in log.events if e["type"] == "model_call"]
    assert [c.get("usage") for c in logged] == [{"prompt_tokens": 9, "completion_tokens": 7}, None]
    assert [c["input_messages"] for c in logged] == [2, 3]
