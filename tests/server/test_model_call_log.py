"""Model-call records a client sends (`_meta["taurec/model_calls"]`): logged before the call
they came with, their messages once in the run's prompt store, a growing conversation as
a prefix and what it adds; malformed ones and references to messages never sent become a
one-line note; past the per-episode cap nothing more is logged (a flood test); the agent
a client reports on start_episode fills the header; every kind's server takes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client

from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.model_calls import (
    STORE_SUFFIX,
    episode_store,
    find_store,
    read_store,
    sha256_of,
)
from taurec.tasks.trajectory.reader import read_log

SYSTEM = {"role": "system", "content": "You recommend films. " * 200}
OPENING = {"role": "user", "content": "Something funny, please."}


def record(messages: list[Any], said: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": "openai/test",
        "input": messages,
        "output": {"role": "assistant", "content": said},
        "usage": {"prompt_tokens": 100, "completion_tokens": 5, "cost_usd": 0.001},
        "latency_ms": 12.5,
        **extra,
    }


async def _episode(client: Client, meta: dict[str, Any] | None = None) -> str:
    started = await client.call_tool("start_episode", {"task_id": "t001"}, meta=meta)
    return str((started.structured_content or {})["episode_id"])


async def _search(client: Client, episode: str, records: Any) -> Any:
    arguments = {"episode_id": episode, "query": "comedy", "limit": 1}
    return await client.call_tool("search_catalog", arguments, meta={"taurec/model_calls": records})


def _events(log_dir: Path) -> list[dict[str, Any]]:
    (path,) = log_dir.rglob("*.jsonl")
    return read_log(path).events


async def test_records_are_logged_before_the_call_they_came_with(tmp_path: Path) -> None:
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        episode = await _episode(client)
        await _search(client, episode, [record([SYSTEM, OPENING], "Let me look.")])
    events = _events(tmp_path)
    kinds = [e["type"] for e in events]
    assert kinds[1:3] == ["model_call", "tool_call"]
    call = events[1]
    assert call["caller"] == "agent" and call["model"] == "openai/test"
    assert call["output"]["content"] == "Let me look." and call["latency_ms"] == 12.5
    assert call["usage"] == {"prompt_tokens": 100, "completion_tokens": 5, "cost_usd": 0.001}


async def test_a_growing_conversation_is_stored_once_as_prefix_and_addition(
    tmp_path: Path,
) -> None:
    first = record([SYSTEM, OPENING], "Let me look.")
    reply = {"role": "tool", "tool_call_id": "c1", "content": "no hits"}
    said = first["output"]
    # the second call names what the first sent by sha256, as the client does
    second = record([sha256_of(SYSTEM), sha256_of(OPENING), sha256_of(said), reply], "Hmm.")
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        episode = await _episode(client)
        await _search(client, episode, [first])
        await _search(client, episode, [second])
    calls = [e for e in _events(tmp_path) if e["type"] == "model_call"]
    log = next(tmp_path.rglob("*.jsonl"))
    store_path = find_store(log)
    assert store_path is not None and store_path == episode_store(log)
    store = read_store(store_path, 2**30)
    assert store.problems == []
    assert store.messages(calls[1]["input"]) == [
        sha256_of(m) for m in (SYSTEM, OPENING, said, reply)
    ]
    assert store.prompts[calls[1]["input"]]["prefix"] == calls[0]["input"]
    assert store_path.read_text().count("You recommend films.") == 200  # the prompt, once


async def test_a_malformed_record_is_a_note_naming_what_was_wrong(tmp_path: Path) -> None:
    bad = [
        {"model": "openai/test", "input": "not a list"},
        record([SYSTEM], "x", usage={"prompt_tokens": -1}),
        record(["0" * 64], "x"),
        "a string",
        record([SYSTEM], "x", settings={"temperature": 0.2, "top": {"k": 5}}),
        record([SYSTEM, 5], "x"),
    ]
    async with Client(build_server(ServerSettings(log_dir=tmp_path))) as client:
        episode = await _episode(client)
        result = await _search(client, episode, bad)
    assert not result.is_error  # the call itself goes through
    notes = [e["detail"] for e in _events(tmp_path) if e["type"] == "model_call"]
    assert len(notes) == 6
    assert notes[0].startswith("malformed model-call record: input:")
    assert "usage.prompt_tokens" in notes[1]
    assert "names no message this episode sent" in notes[2]
    assert notes[3].startswith("malformed model-call record: record:")
    assert "settings.top: expected a number, a string" in notes[4]
    assert "input[1]: expected a message object or the sha256" in notes[5]


async def test_a_client_cannot_log_more_than_the_cap(tmp_path: Path) -> None:
    cap = 64 * 1024
    settings = ServerSettings(log_dir=tmp_path, max_model_call_bytes_per_episode=cap)
    sent = 0
    async with Client(build_server(settings)) as client:
        episode = await _episode(client)
        (log,) = tmp_path.rglob("*.jsonl")
        before = log.stat().st_size
        for n in range(40):  # 40 requests of 4 records of 8 kB of fresh text: 1.3 MB
            batch = [
                record([{"role": "user", "content": f"{n}-{i} " + "x" * 8000}], "y")
                for i in range(4)
            ]
            sent += len(orjson.dumps(batch))
            result = await _search(client, episode, batch)
            assert not result.is_error
    events = _events(tmp_path)
    store_bytes = sum(p.stat().st_size for p in tmp_path.rglob(f"*{STORE_SUFFIX}"))
    event_bytes = sum(len(orjson.dumps(e)) for e in events if e["type"] == "model_call")
    print(f"sent {sent:,} bytes of records; logged {store_bytes + event_bytes:,} (cap {cap:,})")
    assert sent > 20 * cap and 0 < store_bytes + event_bytes <= cap + 2_000  # chains: ~80 B
    notes = [e for e in events if e["type"] == "model_call" and "cap" in e.get("detail", "")]
    assert len(notes) == 1
    assert sum(e["type"] == "tool_call" for e in events) == 40  # the calls all went through
    assert log.stat().st_size - before < cap + 40 * 2_000


async def test_the_agent_a_client_reports_fills_the_header(tmp_path: Path) -> None:
    agent = {"kind": "llm", "model": "openai/test", "settings": {"temperature": 0.5}}
    async with Client(build_server(ServerSettings(log_dir=tmp_path / "a"))) as client:
        await _episode(client, {"taurec/agent": agent})
    async with Client(build_server(ServerSettings(log_dir=tmp_path / "b"))) as client:
        await _episode(client, {"taurec/agent": {"kind": 5, "settings": ["no"]}})
    (good,) = (tmp_path / "a").rglob("*.jsonl")
    (bad,) = (tmp_path / "b").rglob("*.jsonl")
    assert orjson.loads(good.read_bytes().split(b"\n")[0])["agent"] == {"label": "agent", **agent}
    header = orjson.loads(bad.read_bytes().split(b"\n")[0])
    assert header["agent"] == {"label": "agent", "kind": None, "model": None, "settings": {}}


@pytest.mark.parametrize(
    ("suite", "start", "call"),
    [
        ("ranking:builtin", {}, ("get_user_profile", {})),
        ("stream:builtin", {}, ("current_episode", {})),
    ],
)
async def test_every_kinds_server_logs_the_records(
    tmp_path: Path, suite: str, start: dict[str, Any], call: tuple[str, dict[str, Any]]
) -> None:
    settings = ServerSettings(suite=suite, log_dir=tmp_path)
    async with Client(build_server(settings)) as client:
        task_id = load_suite(suite).tasks[0].id
        started = await client.call_tool("start_episode", {"task_id": task_id, **start})
        episode = (started.structured_content or {})["episode_id"]
        name, arguments = call
        meta = {"taurec/model_calls": [record([OPENING], "Let me see.")]}
        await client.call_tool(name, {"episode_id": episode, **arguments}, meta=meta)
    kinds = [e["type"] for e in _events(tmp_path)]
    assert kinds[:3] == ["user_message", "model_call", "tool_call"]


async def test_one_client_filling_its_stores_leaves_another_episodes_messages_readable(
    tmp_path: Path,
) -> None:
    """The attack: one client of an open server writes prompt-store entries in episode
    after episode, each under the per-episode cap, past what readers read (71 MiB in 9 s
    against readers stopping at 64 MiB; scaled down here: 6 x 256 kB against 1 MB). An
    honest episode's call then showed none of its messages. Each episode has its own
    store now, so the honest one's two messages are read whole."""
    from taurec.evaluator.episodes.model_calls import attach_messages, model_entry

    cap, read_limit = 256 * 1024, 1024 * 1024
    settings = ServerSettings(log_dir=tmp_path, max_model_call_bytes_per_episode=cap)
    async with Client(build_server(settings)) as client:
        for n in range(6):
            flooded = await _episode(client)
            for k in range(40):
                text = f"{n}-{k} " + "x" * 8000
                await _search(client, flooded, [record([{"role": "user", "content": text}], "y")])
        honest = await _episode(client)
        await _search(client, honest, [record([SYSTEM, OPENING], "Let me look.")])
    log = next(p for p in tmp_path.rglob("*.jsonl") if honest[:12] in p.name)
    stores = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".jsonl"]
    assert (
        sum(p.stat().st_size for p in stores) > read_limit
    )  # the flood wrote more than a reader reads
    events = read_log(log).events
    doc = {"conversation": [model_entry(e) for e in events if e["type"] == "model_call"]}
    attach_messages(doc, str(log), read_limit)
    (call,) = doc["conversation"]
    assert call["input_messages"] == 2 and "not_kept" not in call
    assert [doc["model_messages"][h]["role"] for h in call["input"]] == ["system", "user"]


def test_a_call_whose_messages_were_not_kept_says_so() -> None:
    from taurec.evaluator.episodes.model_calls import attach_messages

    doc = {"conversation": [{"role": "model", "seq": 3, "prompt": "f" * 64, "input_messages": 2}]}
    attach_messages(doc, "/nonexistent/run/t/trial0-x.jsonl", 1024)
    (call,) = doc["conversation"]
    assert call["not_kept"] == "no prompt store beside this log: its messages were not kept"
