"""The audit over whole runs played in process: the built-in simulators contradict their
tasks nowhere, and an LLM user scripted to accept a violating title is flagged there alone."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client
from typer.testing import CliRunner

from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.cli.main import app
from taurec.evaluator.logs import Resolver, score_files
from taurec.server.app import build_server
from taurec.server.recommendation.simulator.llm_user import LLMUserSettings, llm_users
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite

SUITE = load_suite("builtin")


async def _scripted_run(simulator: str, out: Path) -> None:
    settings = ServerSettings(log_dir=out, run_label=simulator, simulator=simulator)
    runner = Runner(
        ScriptedAgent(), Connection("inproc", settings), out, "scripted", handle_signals=False
    )
    report = await runner.run(plan([t.id for t in SUITE.tasks], 1))
    assert report.failure is None and not report.interrupted


@pytest.fixture(scope="module")
def suite_runs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list[Any]]:
    """The scripted agent over the built-in suite with a simulator: scores, played once."""
    played: dict[str, list[Any]] = {}

    def scores(simulator: str) -> list[Any]:
        if simulator not in played:
            out = tmp_path_factory.mktemp(simulator)
            anyio.run(_scripted_run, simulator, out)
            played[simulator] = score_files(sorted(out.rglob("*.jsonl")), Resolver(), workers=1)
        return played[simulator]

    return scores


@pytest.mark.parametrize("simulator", ["rule", "agenda-requests"])
def test_over_the_builtin_suite_the_simulator_audits_at_zero_faults(
    simulator: str, suite_runs: Callable[[str], list[Any]]
) -> None:
    scores = suite_runs(simulator)
    assert len(scores) == len(SUITE.tasks)
    assert all(s.simulator == simulator and "sr" in s.metrics for s in scores)
    assert [(s.task_id, s.simulator_faults) for s in scores if s.simulator_faults] == []


def test_the_scripted_agent_answers_every_request_of_the_agenda_user(
    suite_runs: Callable[[str], list[Any]],
) -> None:
    scores = suite_runs("agenda-requests")
    assert sum(s.metrics["requests"] for s in scores) > 0
    assert [s.task_id for s in scores if s.metrics["requests_unanswered"]] == []


async def _agenda_run_with_matrices(dialogues: Path, out: Path, task_ids: list[str]) -> None:
    settings = ServerSettings(
        log_dir=out, run_label="sampled", simulator="agenda-requests", agenda_dialogues=dialogues
    )
    runner = Runner(
        ScriptedAgent(), Connection("inproc", settings), out, "scripted", handle_signals=False
    )
    report = await runner.run(plan(task_ids, 1))
    assert report.failure is None and not report.interrupted


def test_the_agenda_user_with_matrices_from_the_rule_users_logs_audits_at_zero_faults(
    suite_runs: Callable[[str], list[Any]], tmp_path: Path
) -> None:
    rule_logs = next(p for p in Path(suite_runs("rule")[0].path).parents if p.name == "rule")
    task_ids = [t.id for t in SUITE.tasks][::6]
    anyio.run(_agenda_run_with_matrices, rule_logs, tmp_path, task_ids)
    logs = sorted(tmp_path.rglob("*.jsonl"))
    header = orjson.loads(logs[0].read_bytes().splitlines()[0])
    transitions = header["simulator"]["settings"]["transitions"]
    assert transitions["dialogues"] == len(SUITE.tasks) and transitions["transitions"] > 0
    scores = score_files(logs, Resolver(), workers=1)
    assert len(scores) == len(task_ids)
    assert [(s.task_id, s.simulator_faults) for s in scores if s.simulator_faults] == []


class ChattyScriptedAgent(ScriptedAgent):
    """The scripted agent, after two remarks that ask nothing (the NLU reads `other`)."""

    async def run(self, episode: Any) -> None:
        for remark in ("Let me look into that.", "One moment while I search."):
            if (await episode.say(remark)).ended:
                return
        await super().run(episode)


async def _chatty_run(settings: ServerSettings, out: Path, task_ids: list[str]) -> None:
    runner = Runner(
        ChattyScriptedAgent(), Connection("inproc", settings), out, "chatty", handle_signals=False
    )
    report = await runner.run(plan(task_ids, 1))
    assert report.failure is None and not report.interrupted


def test_sampled_disclosures_in_whole_episodes_audit_at_zero_faults(tmp_path: Path) -> None:
    turns = [
        {"participant": "agent", "intents": ["other"]},
        {"participant": "user", "intents": ["disclose"]},
    ]
    dialogues = tmp_path / "dialogues.jsonl"
    dialogues.write_bytes(orjson.dumps({"utterances": turns}) + b"\n")
    out = tmp_path / "logs"
    settings = ServerSettings(
        log_dir=out, run_label="chatty", simulator="agenda-requests", agenda_dialogues=dialogues
    )
    task_ids = [t.id for t in SUITE.tasks][::4]
    anyio.run(_chatty_run, settings, out, task_ids)
    logs = sorted(out.rglob("*.jsonl"))
    sampled = 0
    for log in logs:
        records = [orjson.loads(line) for line in log.read_bytes().splitlines()]
        messages = [r for r in records if r["type"] in ("agent_message", "user_message")]
        for agent, user in pairwise(messages):
            if agent["type"] == "agent_message" and agent["text"] == "Let me look into that.":
                sampled += any(a["intent"] == "disclose" for a in user["acts"])
    assert sampled >= len(task_ids) // 2  # the sampled case fired in whole episodes
    scores = score_files(logs, Resolver(), workers=1)
    assert len(scores) == len(task_ids)
    assert [(s.task_id, s.simulator_faults) for s in scores if s.simulator_faults] == []


class AcceptsAnything:
    """A mocked model whose user takes whatever title was last offered."""

    def __call__(self, **kwargs: Any) -> Any:
        text = "Perfect, I'll take it!\nACTS: accept()"
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=text))],
            usage=SimpleNamespace(prompt_tokens=10, completion_tokens=5),
        )


def _fitting_and_violating(task: Any) -> tuple[str, str]:
    items = SUITE.catalog.items
    watched = task.user.watched_ids
    fits = next(
        i for i in items if i.id not in watched and all(c.holds(i) for c in task.constraints)
    )
    breaks = next(i for i in items if i.id not in watched and not task.constraints[0].holds(i))
    return fits.title, breaks.title


async def _play_llm_logs(out: Path) -> None:
    """Three episodes of one task with an LLM user that accepts anything: trial 1 is
    offered a title that breaks a constraint, trials 0 and 2 a fitting one."""
    task = next(t for t in SUITE.tasks if not t.no_valid_recommendation)
    fits, breaks = _fitting_and_violating(task)
    llm = LLMUserSettings(model="openai/test", cache_dir=None, completion=AcceptsAnything())
    server = build_server(
        ServerSettings(log_dir=out, run_label="llm"), make_user=llm_users(SUITE.catalog, llm)
    )
    async with Client(server) as client:
        for trial, title in enumerate((fits, breaks, fits)):
            started = await client.call_tool("start_episode", {"task_id": task.id, "trial": trial})
            eid = (started.structured_content or {})["episode_id"]
            text = f'How about "{title}"?'
            await client.call_tool("send_message", {"episode_id": eid, "text": text})
            await client.call_tool("recommend", {"episode_id": eid, "item_id": None})


@pytest.fixture(scope="module")
def llm_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("llm")
    anyio.run(_play_llm_logs, out)
    return out


def test_an_llm_user_accepting_a_violating_title_is_flagged_in_that_episode_alone(
    llm_logs: Path,
) -> None:
    scores = score_files(sorted(llm_logs.rglob("*.jsonl")), Resolver(), workers=1)
    flagged = [
        (s.trial, [f.kind for f in s.simulator_faults]) for s in scores if s.simulator_faults
    ]
    assert flagged == [(1, ["accepted_violating"])]
    assert {s.simulator for s in scores} == {"llm-single"}


def test_score_json_reports_the_fault_rate_per_simulator_and_lists_the_episode(
    llm_logs: Path,
) -> None:
    result = CliRunner().invoke(app, ["score", str(llm_logs), "--json"])
    (group,) = orjson.loads(result.stdout)["groups"]
    faults = group["simulator_faults"]
    assert faults["by_simulator"]["llm-single"] == {"episodes": 3, "faulty": 1, "rate": 1 / 3}
    (listed,) = faults["episodes"]
    assert listed["trial"] == 1 and listed["faults"][0]["kind"] == "accepted_violating"


def test_the_score_table_lists_the_faulty_episode(llm_logs: Path) -> None:
    result = CliRunner().invoke(app, ["score", str(llm_logs)])
    assert "simulator faults: llm-single" in result.stdout
    assert "trial 1 (llm-single)" in result.stdout and "accepted_violating" in result.stdout
