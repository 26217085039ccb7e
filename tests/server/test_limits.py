"""Per-call limits: text length (max_message_chars) and tool calls per episode
(max_tool_calls_per_episode). A refused over-long call changes nothing; the call past the
tool-call limit ends the episode as agent_error, with its log closed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from pydantic import ValidationError
from support.results import error_text as _error
from support.results import ok as _ok

from taurec.clients.runner.connection import serve_arguments
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.reader import read_log


def _client(tmp_path: Path, **limits: int) -> Client:
    return Client(build_server(ServerSettings(log_dir=tmp_path, run_label="limits", **limits)))


async def _start(client: Client) -> str:
    return str(_ok(await client.call_tool("start_episode", {"task_id": "t001"}))["episode_id"])


def _events(tmp_path: Path, episode_id: str) -> list[dict[str, Any]]:
    (path,) = tmp_path.rglob(f"*-{episode_id[:12]}.jsonl")
    return read_log(path).events


async def test_an_over_long_message_is_refused_naming_the_limit_and_its_length(
    tmp_path: Path,
) -> None:
    async with _client(tmp_path, max_message_chars=50) as client:
        eid = await _start(client)
        text = _error(await client.call_tool("send_message", {"episode_id": eid, "text": "a" * 51}))
    assert "argument 'text'" in text
    assert "51 characters" in text and "at most 50" in text and "max_message_chars" in text


async def test_a_refused_message_uses_no_turn_and_the_episode_goes_on(tmp_path: Path) -> None:
    async with _client(tmp_path, max_message_chars=50) as client:
        eid = await _start(client)
        _error(await client.call_tool("send_message", {"episode_id": eid, "text": "a" * 51}))
        reply = _ok(await client.call_tool("send_message", {"episode_id": eid, "text": "Hi!"}))
    assert reply["turns_used"] == 1 and not reply["episode_ended"]
    events = _events(tmp_path, eid)
    rejected = [e for e in events if e["type"] == "tool_result" and e["is_error"]]
    assert len(rejected) == 1 and "max_message_chars" in rejected[0]["content"]
    assert not any(e["type"] == "end" for e in events)


@pytest.mark.parametrize(
    ("tool", "arguments", "argument"),
    [
        ("search_catalog", {"query": "q" * 51}, "query"),
        ("recommend", {"item_id": None, "message": "m" * 51}, "message"),
        ("get_item", {"item_id": "i" * 51}, "item_id"),
        ("filter_catalog", {"exclude_ids": ["ok", "x" * 51]}, "exclude_ids[1]"),
    ],
)
async def test_every_free_text_argument_is_limited(
    tmp_path: Path, tool: str, arguments: dict[str, Any], argument: str
) -> None:
    async with _client(tmp_path, max_message_chars=50) as client:
        eid = await _start(client)
        text = _error(await client.call_tool(tool, {"episode_id": eid, **arguments}))
        later = await client.call_tool("get_user_history", {"episode_id": eid})
    assert f"argument '{argument}'" in text and "max_message_chars" in text
    assert not later.is_error, later.content  # still open: a refused recommend committed nothing


async def test_the_call_past_the_tool_call_limit_ends_the_episode_as_agent_error(
    tmp_path: Path,
) -> None:
    async with _client(tmp_path, max_tool_calls_per_episode=3) as client:
        eid = await _start(client)
        _ok(await client.call_tool("send_message", {"episode_id": eid, "text": "Hi!"}))
        _ok(await client.call_tool("get_user_history", {"episode_id": eid}))
        _ok(await client.call_tool("search_catalog", {"episode_id": eid, "query": "space"}))
        refused = _error(await client.call_tool("get_user_history", {"episode_id": eid}))
        after = _error(await client.call_tool("get_user_history", {"episode_id": eid}))
    assert "limit of 3 tool calls" in refused and "max_tool_calls_per_episode" in refused
    assert "has ended (agent_error)" in refused and "start_episode" in refused
    assert "more tool calls than this server allows" in after
    end = _events(tmp_path, eid)[-1]
    assert end["type"] == "end" and end["reason"] == "agent_error"
    assert end["detail"].startswith("tool-call limit: 3 tool calls")


async def test_calls_the_sdk_rejected_count_toward_the_limit(tmp_path: Path) -> None:
    async with _client(tmp_path, max_tool_calls_per_episode=2) as client:
        eid = await _start(client)
        for _ in range(3):  # limit is not an integer: refused before the tool runs
            _error(await client.call_tool("search_catalog", {"episode_id": eid, "limit": "x"}))
        after = _error(await client.call_tool("get_user_history", {"episode_id": eid}))
    assert "has ended (agent_error)" in after
    events = _events(tmp_path, eid)
    assert [e["type"] for e in events].count("tool_call") == 3
    assert events[-1]["type"] == "end" and events[-1]["reason"] == "agent_error"


async def test_a_harness_can_still_abort_an_episode_at_its_limit(tmp_path: Path) -> None:
    async with _client(tmp_path, max_tool_calls_per_episode=1) as client:
        eid = await _start(client)
        _ok(await client.call_tool("get_user_history", {"episode_id": eid}))
        aborted = await client.call_tool(
            "abort_episode", {"episode_id": eid, "reason": "infra_error", "detail": "provider down"}
        )
    assert _ok(aborted)["end_reason"] == "infra_error"
    assert _events(tmp_path, eid)[-1]["reason"] == "infra_error"


@pytest.mark.parametrize(
    "limits",
    [
        {"max_message_chars": 0},
        {"max_message_chars": 100_001},
        {"max_tool_calls_per_episode": 0},
    ],
)
def test_limits_out_of_range_are_refused(limits: dict[str, int]) -> None:
    with pytest.raises(ValidationError, match=next(iter(limits))):
        ServerSettings(**limits)


def test_a_server_the_runner_starts_over_stdio_gets_the_same_limits() -> None:
    settings = ServerSettings(max_message_chars=50, max_tool_calls_per_episode=7)
    args = serve_arguments(settings)
    assert args[args.index("--max-message-chars") + 1] == "50"
    assert args[args.index("--max-tool-calls-per-episode") + 1] == "7"
    assert "--max-message-chars" not in serve_arguments(ServerSettings())


async def test_refused_catalog_calls_score_without_false_replay_mismatches(tmp_path: Path) -> None:
    """The catalog itself would answer an over-long query or a call past the limit; the
    log marks such calls refused, so replay does not report the server's refusal as an
    edited result."""
    from taurec.evaluator.logs import Resolver, score_paths

    async with _client(tmp_path, max_message_chars=50, max_tool_calls_per_episode=3) as client:
        eid = await _start(client)
        long_query = {"episode_id": eid, "query": "western " * 10}
        _error(await client.call_tool("search_catalog", long_query))
        _ok(await client.call_tool("get_item", {"episode_id": eid, "item_id": "syn_000221"}))
        _ok(await client.call_tool("get_item", {"episode_id": eid, "item_id": "syn_000020"}))
        _error(await client.call_tool("get_item", {"episode_id": eid, "item_id": "syn_000056"}))
    results = [e for e in _events(tmp_path, eid) if e["type"] == "tool_result"]
    assert [r.get("refused", False) for r in results] == [True, False, False, True]
    (score,) = score_paths([tmp_path], Resolver(), workers=1)
    assert score.replay_mismatches == 0, score.problems
    assert score.end_reason == "agent_error"


async def test_a_refused_mark_does_not_hide_a_successful_result_from_replay(
    tmp_path: Path,
) -> None:
    """Only an error can be refused: a forged success marked refused is still replayed."""
    import orjson

    from taurec.evaluator.logs import Resolver, score_paths

    async with _client(tmp_path) as client:
        eid = await _start(client)
        _ok(await client.call_tool("get_item", {"episode_id": eid, "item_id": "syn_000221"}))
        await client.call_tool("abort_episode", {"episode_id": eid, "reason": "agent_error"})
    (path,) = tmp_path.rglob("*.jsonl")
    forged = []
    for line in path.read_bytes().splitlines(keepends=True):
        record = orjson.loads(line)
        if record["type"] == "tool_result" and isinstance(record["content"], dict):
            record["content"]["title"] = "Not The Catalog's Title"
            record["refused"] = True
            line = orjson.dumps(record) + b"\n"
        forged.append(line)
    path.write_bytes(b"".join(forged))
    (score,) = score_paths([tmp_path], Resolver(), workers=1)
    assert score.replay_mismatches == 1


# --- asides (_meta "taurec/aside") ---------------------------------------------------------


async def test_an_over_long_aside_is_refused_like_an_over_long_argument(tmp_path: Path) -> None:
    async with _client(tmp_path, max_message_chars=50) as client:
        eid = await _start(client)
        refused = await client.call_tool(
            "get_user_history", {"episode_id": eid}, meta={"taurec/aside": "a" * 51}
        )
        reply = _ok(await client.call_tool("send_message", {"episode_id": eid, "text": "Hi!"}))
    text = _error(refused)
    assert "'_meta.taurec/aside'" in text and "51 characters" in text and "at most 50" in text
    assert reply["turns_used"] == 1  # nothing else happened: the episode goes on
    events = _events(tmp_path, eid)
    assert not any(e["type"] == "agent_message" and not e["delivered"] for e in events)
    (result,) = [e for e in events if e["type"] == "tool_result" and e["is_error"]]
    assert result["refused"] and "max_message_chars" in result["content"]


async def test_an_aside_within_the_limit_is_logged_undelivered(tmp_path: Path) -> None:
    async with _client(tmp_path, max_message_chars=50) as client:
        eid = await _start(client)
        result = await client.call_tool(
            "get_user_history", {"episode_id": eid}, meta={"taurec/aside": "b" * 50}
        )
    assert not result.is_error
    asides = [e for e in _events(tmp_path, eid) if e["type"] == "agent_message"]
    assert [(a["text"], a["delivered"]) for a in asides] == [("b" * 50, False)]


async def test_four_megabytes_of_asides_cannot_reach_the_log(tmp_path: Path) -> None:
    aside = "x" * 20_000
    async with _client(tmp_path, max_tool_calls_per_episode=200) as client:
        eid = await _start(client)
        for _ in range(200):  # 200 x 20,000 characters: 4 MB sent as asides
            await client.call_tool(
                "get_user_history", {"episode_id": eid}, meta={"taurec/aside": aside}
            )
    (path,) = tmp_path.rglob(f"*-{eid[:12]}.jsonl")
    assert path.stat().st_size < 200_000
    assert aside not in path.read_text()
