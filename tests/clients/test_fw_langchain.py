"""examples/langchain_mcp.py, run as a newcomer runs it: from an environment of its own
(langchain-mcp-adapters needs mcp<2, taurec mcp>=2.3), named by TAUREC_LANGCHAIN_PYTHON,
against `taurec serve` from this environment over stdio and over HTTP, offline with its
scripted chat model. Skipped when TAUREC_LANGCHAIN_PYTHON is not set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.example_runs import EXAMPLES, one_line_error, only_score, run_example
from support.hang_guard import HANG_GUARD_S
from support.http_server import http_server_process

LANGCHAIN_PYTHON = os.environ.get("TAUREC_LANGCHAIN_PYTHON", "")
pytestmark = pytest.mark.skipif(
    not LANGCHAIN_PYTHON,
    reason="TAUREC_LANGCHAIN_PYTHON is not set: the python of an environment with "
    "langchain-mcp-adapters and langchain-core (it needs mcp<2, so not taurec's own)",
)
TAUREC_PYTHON = ["--taurec-python", sys.executable]
#: Plays one episode with the example's `play`, its model's bind_tools spied on; prints
#: the tools offered (name -> input schema) and how the episode ended, as JSON.
SPY = """
import asyncio, importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("example", sys.argv[1])
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)
offered = {}
class Spy(type(example.chat_model("scripted"))):
    def bind_tools(self, tools, **kwargs):
        offered.update({tool.name: tool.args_schema for tool in tools})
        return self
serve = ["-m", "taurec.clients.cli.serve", "--log-dir", sys.argv[3]]
connection = {"transport": "stdio", "command": sys.argv[2], "args": serve, "env": dict(os.environ)}
_, ended = asyncio.run(example.play(connection, "t001", 0, model=Spy(), label="spy"))
print(json.dumps({"offered": offered, "ended": ended}))
"""


def _langchain(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_example("langchain_mcp.py", *args, cwd=cwd, python=LANGCHAIN_PYTHON, env=env)


def test_it_plays_an_episode_over_stdio_with_taurecs_python(tmp_path: Path) -> None:
    done = _langchain(*TAUREC_PYTHON, "--log-dir", "logs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ended: recommended" in done.stdout
    score = only_score(tmp_path / "logs")
    assert (score.label, score.end_reason) == ("langchain:scripted", "recommended")
    assert score.turns == 1  # its plain-text question went to the user with send_message
    assert f"score: passed {int(score.passed)} of 1" in done.stdout  # by taurec's evaluator
    # each model call (question, search, recommend) went with the next tool call
    assert score.agent_model == "scripted"
    assert score.model_usage["agent"]["calls"] == 3


def test_it_plays_an_episode_against_an_http_server(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    with http_server_process(logs) as server:
        args = ["--url", server.url, "--log-dir", str(logs), "--task", "t005"]
        done = _langchain(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    score = only_score(logs)
    assert (score.label, score.task_id, score.end_reason) == (
        "langchain:scripted",
        "t005",
        "recommended",
    )


def test_the_model_is_offered_no_episode_id_and_no_harness_tool(tmp_path: Path) -> None:
    command = [LANGCHAIN_PYTHON, "-c", SPY, str(EXAMPLES / "langchain_mcp.py")]
    done = subprocess.run(
        [*command, sys.executable, str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["ended"] == "recommended"  # the interceptor filled the id in
    offered = seen["offered"]
    assert {"recommend", "send_message", "search_catalog"} <= set(offered)
    assert not {"start_episode", "abort_episode", "list_tasks", "server_info"} & set(offered)
    for schema in offered.values():
        assert "episode_id" not in schema.get("properties", {})
        assert "episode_id" not in schema.get("required", [])


def test_without_taurec_on_path_it_asks_for_taurecs_python(tmp_path: Path) -> None:
    done = _langchain(cwd=tmp_path, env={"PATH": str(Path(LANGCHAIN_PYTHON).parent)})
    assert one_line_error(done) == (
        "error: taurec not found on PATH: pass --taurec-python with the python of the "
        "environment where taurec is installed (e.g. .venv/bin/python), or --url of a running "
        "`taurec serve --transport http`"
    )


def test_a_real_model_without_its_key_stops_with_one_line(tmp_path: Path) -> None:
    done = _langchain("--model", "openai:gpt-4o-mini", *TAUREC_PYTHON, cwd=tmp_path)
    assert one_line_error(done) == (
        "error: --model openai:gpt-4o-mini: OPENAI_API_KEY not set (export it); to run "
        "offline without a key: --model scripted"
    )


def test_a_task_the_server_refuses_is_told_in_the_servers_words(tmp_path: Path) -> None:
    done = _langchain(*TAUREC_PYTHON, "--task", "t999", "--log-dir", "logs", cwd=tmp_path)
    assert one_line_error(done) == (
        "error: the server would not start the episode: argument 'task_id': expected a task id "
        "from list_tasks (e.g. t001, t002, t003), got 't999'"
    )
