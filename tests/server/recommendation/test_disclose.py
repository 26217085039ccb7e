"""`recommend(..., disclose=["sponsored"])`: the server shows the user a fixed disclosure
line before the agent's message, logs both, and the sponsored check passes on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client
from support.results import error_text, ok

from taurec.catalog.mentions import TitleMatcher
from taurec.evaluator.recommendation.scoring import score_episode
from taurec.policies.checks import Verdict
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.task import PolicyName
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

SUITE = load_suite("builtin")
SPONSORED = next(i for i in SUITE.catalog.items if i.sponsored)
PLAIN = next(i for i in SUITE.catalog.items if not i.sponsored)


def _client(tmp_path: Path) -> Client:
    return Client(build_server(ServerSettings(log_dir=tmp_path, run_label="disclose")))


async def _start(client: Client) -> str:
    return str(ok(await client.call_tool("start_episode", {"task_id": "t001"}))["episode_id"])


def _log(tmp_path: Path) -> Any:
    (path,) = tmp_path.rglob("*.jsonl")
    log = read_log(path)
    assert log.ok, log.problems
    return log


async def test_a_disclosed_commit_shows_the_fixed_line_before_the_message(tmp_path: Path):
    async with _client(tmp_path) as client:
        eid = await _start(client)
        arguments = {"item_id": SPONSORED.id, "message": "Enjoy!", "disclose": ["sponsored"]}
        result = ok(await client.call_tool("recommend", {"episode_id": eid, **arguments}))
    shown = f"[Sponsored] {SPONSORED.title} is a sponsored title.\nEnjoy!"
    assert result["message_shown"] == shown
    events = _log(tmp_path).events
    call = next(e for e in events if e["type"] == "tool_call" and e["name"] == "recommend")
    done = next(e for e in events if e["type"] == "tool_result" and e["call_id"] == call["call_id"])
    assert (
        call["arguments"]["disclose"] == ["sponsored"] and call["arguments"]["message"] == "Enjoy!"
    )
    assert done["content"]["message_shown"] == shown


async def test_the_sponsored_check_passes_on_the_structured_disclosure(tmp_path: Path):
    async with _client(tmp_path) as client:
        eid = await _start(client)
        arguments = {"item_id": SPONSORED.id, "disclose": ["sponsored"]}
        ok(await client.call_tool("recommend", {"episode_id": eid, **arguments}))
    log = _log(tmp_path)
    task = SUITE.get("t001")
    assert task is not None
    task = task.model_copy(update={"policy_flags": [PolicyName.SPONSORED]})
    titles = TitleMatcher(SUITE.catalog.items)
    for rules in ("taurec", "tau-rec"):
        score = score_episode(task, log.trajectory, SUITE.catalog, titles, rules=rules)
        (result,) = score.policy_results
        assert result.verdict is Verdict.PASS, (rules, result.reason)


async def test_a_commit_without_disclose_logs_no_shown_message(tmp_path: Path):
    async with _client(tmp_path) as client:
        eid = await _start(client)
        result = ok(await client.call_tool("recommend", {"episode_id": eid, "item_id": PLAIN.id}))
    assert "message_shown" not in result
    call = next(e for e in _log(tmp_path).events if e["type"] == "tool_call")
    assert "disclose" not in call["arguments"]


async def test_disclosing_an_abstention_or_an_unsponsored_title_commits_nothing(tmp_path: Path):
    async with _client(tmp_path) as client:
        eid = await _start(client)
        for item in (None, PLAIN.id):
            arguments = {"episode_id": eid, "item_id": item, "disclose": ["sponsored"]}
            text = error_text(await client.call_tool("recommend", arguments))
            assert "disclose" in text and "Nothing was committed" in text
        still = ok(await client.call_tool("get_user_history", {"episode_id": eid}))
    assert still["user_id"]


async def test_the_tool_schema_offers_only_the_known_disclosures(tmp_path: Path):
    async with _client(tmp_path) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    schema = tools["recommend"].input_schema["properties"]["disclose"]
    assert "sponsored" in str(schema) and "disclose" in (tools["recommend"].description or "")
