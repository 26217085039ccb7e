"""Model calls in the viewer's episode view and in `evaluator explain`: each call an entry
in the conversation, the messages it sent resolved from the run's prompt store (checked
against their hashes), the simulated user's prompts withheld while its task is live."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from rich.console import Console

from taurec.clients.agents.llm import LLMAgent, LLMAgentSettings
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.cli.explain import print_conversation
from taurec.evaluator.episodes.model_calls import withhold_prompts
from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer.data import LogSet
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.model_calls import STORE_SUFFIX


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One episode of the `mock` LLM agent: a search, then a recommendation."""
    out = tmp_path_factory.mktemp("model-view") / "logs"
    agent = LLMAgent(LLMAgentSettings(model="mock"))
    runner = Runner(agent, Connection("inproc", ServerSettings(log_dir=out)), out, "mock@t0")
    anyio.run(runner.run, plan(["t001"], 1))
    return out


def _detail(logs: Path) -> dict[str, Any]:
    view = LogSet([logs], Resolver())
    view.refresh(force=True)
    (row,) = view.rows
    doc = view.detail(row["key"])
    assert doc is not None
    return doc


def _models(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in doc["conversation"] if e["role"] == "model"]


def test_each_model_call_is_an_entry_with_the_messages_it_sent(run_dir: Path) -> None:
    doc = _detail(run_dir)
    first, second = _models(doc)
    assert first["caller"] == "agent" and first["model"] == "mock"
    assert first["usage"]["prompt_tokens"] > 0 and first["latency_ms"] >= 0
    sent = [doc["model_messages"][h] for h in second["input"]]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[2]["tool_calls"][0]["function"]["name"] == "search_catalog"
    assert second["output"]["tool_calls"][0]["function"]["name"] == "recommend"
    tools = doc["model_messages"][second["tools"]]
    assert "send_message" in {t["function"]["name"] for t in tools}
    assert doc["model_store"]["problems"] == []
    seqs = [e["seq"] for e in doc["conversation"]]
    assert seqs == sorted(seqs)  # in log order, among the messages and tool calls


def test_an_altered_store_entry_is_shown_as_missing(run_dir: Path, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(run_dir, logs)
    store = next(
        s for s in sorted(logs.rglob(f"*{STORE_SUFFIX}")) if "search_catalog" in s.read_text()
    )
    store.write_text(store.read_text().replace("search_catalog", "search_elsewhere", 1))
    doc = _detail(logs)
    assert any("does not match its sha256" in p for p in doc["model_store"]["problems"])
    assert None in doc["model_messages"].values()


def test_the_simulated_users_prompts_are_withheld_while_its_task_is_live() -> None:
    doc = {
        "conversation": [
            {"seq": 1, "role": "model", "caller": "user", "input": ["a" * 64], "prompt": "p"},
            {"seq": 2, "role": "model", "caller": "agent", "input": ["b" * 64], "tools": None},
        ],
        "model_messages": {"a" * 64: {"content": "hidden: under 90 minutes"}, "b" * 64: {}},
    }
    shown = withhold_prompts(doc)
    user, agent = shown["conversation"]
    assert user["input"] is None and user["withheld"] is True
    assert agent["input"] == ["b" * 64]
    assert shown["model_messages"] == {"b" * 64: {}}


def test_explain_prints_one_line_per_model_call(run_dir: Path) -> None:
    console = Console(record=True, width=200)
    print_conversation(_detail(run_dir)["conversation"], console)
    lines = [x for x in console.export_text().splitlines() if " model " in x]
    assert len(lines) == 2 and all("agent → mock" in x and " in / " in x for x in lines)
