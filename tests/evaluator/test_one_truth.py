"""The scorer's rows, the viewer and the report say the same of one mixed folder: which
episodes failed and why (a crash is an agent error, never "no recommendation"), each
episode's tokens, cost and duration, the tokens each series spent, and which series is
which (two labels alike of two kinds are two series). The folder: the offline mock LLM
agent on recommendation, ranking and stream tasks under one label ("mock"), an agent that
raises, and the learning stream agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.crashing_agents import AGENTS
from typer.testing import CliRunner

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.registry import make_agent
from taurec.clients.cli.main import app as taurec
from taurec.clients.runner import run_agent
from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.cli.main import app as evaluator
from taurec.evaluator.evaluate import evaluate
from taurec.evaluator.report.build import build_sections
from taurec.evaluator.report.data import report_data
from taurec.evaluator.resolver import Resolver
from taurec.evaluator.viewer.data import LogSet
from taurec.evaluator.viewer.words import EpisodeWords
from taurec.tasks.suite import load_suite

runner = CliRunner()


def _first(suite: str, n: int) -> list[str]:
    return [t.id for t in load_suite(suite).tasks[:n]]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("one-truth")
    for suite, kind in (("builtin", "recommendation"), ("ranking:builtin", "ranking")):
        agent = make_agent("llm", AgentSettings(suite=suite, model="mock", label="mock"), kind)
        run_agent(agent, suite=suite, tasks=_first(suite, 2), out=root / kind, quiet=True)
    learner = make_agent("learner", AgentSettings(suite="stream:builtin"), "stream")
    run_agent(
        learner,
        suite="stream:builtin",
        tasks=_first("stream:builtin", 2),
        out=root / "stream",
        quiet=True,
    )
    agents = root / "crasher.py"
    agents.write_text(AGENTS)
    crashed = runner.invoke(
        taurec,
        [
            "run",
            "--agent",
            f"{agents}:Crasher",
            "--tasks",
            "t001,t002",
            "--trials",
            "1",
            "--out",
            str(root / "crash"),
        ],
    )
    assert crashed.exit_code == 1, crashed.output  # every episode errored
    return root


@pytest.fixture(scope="module")
def scorer_rows(folder: Path) -> dict[str, dict[str, Any]]:
    result = runner.invoke(evaluator, ["episodes", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    return {r["episode_id"]: r for r in json.loads(result.stdout)}


@pytest.fixture(scope="module")
def viewer(folder: Path) -> LogSet:
    view = LogSet([folder], Resolver())
    view.refresh(force=True)
    return view


def test_the_folder_holds_every_kind_and_a_crash(scorer_rows) -> None:
    kinds = {r["kind"] for r in scorer_rows.values()}
    assert kinds == {"recommendation", "ranking", "stream"}
    assert sum(r["end_reason"] == "agent_error" for r in scorer_rows.values()) == 2


def test_a_crash_is_an_agent_error_with_its_exception_not_no_recommendation(scorer_rows) -> None:
    crashes = [r for r in scorer_rows.values() if r["label"] == "crasher"]
    assert len(crashes) == 2
    for row in crashes:
        assert row["result"] == "fail"
        assert row["error"] == "ValueError: boom in the agent"
        assert row["failure"] == "agent error: ValueError: boom in the agent"


def test_the_viewer_lists_what_the_scorer_rows_say(scorer_rows, viewer: LogSet) -> None:
    shown = {r["episode_id"]: r for r in viewer.rows}
    assert shown.keys() == scorer_rows.keys()
    fields = ("result", "failure", "error", "end_detail", "duration_s", "prompt_tokens")
    fields += ("completion_tokens", "cost_usd", "graded")
    for episode, row in scorer_rows.items():
        assert {f: shown[episode][f] for f in fields} == {f: row[f] for f in fields}, episode
    streams = [r for r in scorer_rows.values() if r["kind"] == "stream"]
    assert streams and all(r["result"] == "ungraded" and r["failure"] is None for r in streams)
    mocks = [r for r in scorer_rows.values() if r["label"] == "mock"]
    assert all(r["prompt_tokens"] > 0 and r["duration_s"] >= 0 for r in mocks)


def test_the_viewer_search_finds_a_traceback_and_each_tool_call_has_its_time(
    scorer_rows, viewer: LogSet
) -> None:
    words = EpisodeWords(viewer).document()["words"]
    keys = {r["episode_id"]: r["key"] for r in viewer.rows}
    for episode, row in scorer_rows.items():
        found = 'raise ValueError("boom in the agent")' in words[keys[episode]]
        assert found == (row["label"] == "crasher"), episode
    ranked = next(r for r in viewer.rows if r["kind"] == "ranking")
    doc = viewer.detail(ranked["key"])
    assert doc is not None
    tools = [e for e in doc["conversation"] if e["role"] == "tool" and e["result"]]
    assert tools and all(e["result"]["ms"] >= 0 for e in tools)


def _report(folder: Path) -> dict[str, Any]:
    check = evaluate([folder], Resolver())
    data = report_data(aggregate(check.scores), check.scores, {})
    return {"data": data, "sections": {s.key: s for s in build_sections(data)}}


def test_the_report_lists_the_failed_episodes_the_rows_call_failed(folder, scorer_rows) -> None:
    report = _report(folder)
    (table,) = report["sections"]["failed-episodes"].tables
    listed = {str(row[-1]) for row in table.rows}
    failed = {r["path"] for r in scorer_rows.values() if r["result"] == "fail"}
    assert listed == failed
    assert not any("stream" in path for path in listed)  # streams that played are curves


def test_the_reports_names_costs_and_failure_modes_agree_with_the_rows(folder, scorer_rows) -> None:
    report = _report(folder)
    names = [s.name for s in report["data"].series]
    assert len(names) == len(set(names))
    assert {"mock (recommendation)", "mock (ranking)"} <= set(names)
    (table,) = report["sections"]["cost"].tables
    spent = {row[0]: row[1] for row in table.rows}
    for series in report["data"].series:
        rows = [r for r in scorer_rows.values() if r["path"] in {e.path for e in series.scores}]
        tokens = [r["prompt_tokens"] + r["completion_tokens"] for r in rows if r["prompt_tokens"]]
        if tokens:
            assert spent[series.name] == sum(tokens), series.name
        else:
            assert series.name not in spent
    modes = report["sections"]["failures"].tables[0]
    crasher = next(row for row in modes.rows if row[0] == "crasher")
    # no false abstention the agent chose: every episode it failed, it crashed
    assert crasher[1] == "agent-error"
    assert [float(c.value) for c in crasher[2:]] == [0.0, 1.0, 0.0]
