"""The framework examples run offline as a newcomer runs them (`--model mock` for the
litellm loop, `--model scripted` for the OpenAI Agents SDK, `--model function` for
pydantic-ai, over stdio and over HTTP) and end with a scored episode, its score printed;
without a key and without the offline flag each stops with one line naming the key and
the offline flag. (What else stops them, in one line: test_examples_stops.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.example_runs import only_score
from support.example_runs import run_example as _example
from support.http_server import http_server_process


def _scored(log_dir: Path) -> tuple[str, str]:
    score = only_score(log_dir)
    return score.label, score.end_reason


def test_the_litellm_loop_plays_offline_with_the_mock_model(tmp_path: Path) -> None:
    done = _example("litellm_mcp.py", "--model", "mock", "--log-dir", "logs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ended: recommended" in done.stdout
    assert "score: reward 0.00, not passed (ended: recommended)" in done.stdout
    assert "Provider List" not in done.stdout + done.stderr
    assert _scored(tmp_path / "logs") == ("litellm-mcp:mock", "recommended")
    # each of its three model calls is logged with the tool call it led to, the model named
    score = only_score(tmp_path / "logs")
    assert score.agent_model == "mock"
    agent = score.model_usage["agent"]
    assert (agent["calls"], agent["prompt_tokens"], agent["completion_tokens"]) == (3, 30, 60)
    assert score.prompt_tokens == 30


def test_the_agents_sdk_example_plays_offline_with_the_scripted_model(tmp_path: Path) -> None:
    pytest.importorskip("agents.mcp", reason="openai-agents is not installed")
    done = _example(
        "openai_agents_sdk.py", "--model", "scripted", "--log-dir", "logs", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "t001 trial 0: Done (scripted model)." in done.stdout
    assert "score: reward 0.00, not passed (ended: recommended)" in done.stdout
    assert _scored(tmp_path / "logs") == ("agents-sdk:scripted", "recommended")
    # its hooks logged each model call that led to a tool call, the model named
    score = only_score(tmp_path / "logs")
    assert score.agent_model == "scripted"
    assert score.model_usage["agent"]["calls"] == 3  # start, search, recommend


def test_the_pydantic_ai_example_plays_offline_with_a_function_model(tmp_path: Path) -> None:
    pytest.importorskip("pydantic_ai.mcp", reason="pydantic-ai-slim[mcp] is not installed")
    done = _example("pydantic_ai_mcp.py", "--model", "function", "--log-dir", "logs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ended: recommended" in done.stdout
    score = only_score(tmp_path / "logs")
    assert (score.label, score.end_reason) == ("pydantic-ai:function", "recommended")
    assert f"score: reward {score.reward:.2f}" in done.stdout
    assert score.turns == 1  # its plain-text question went to the user with send_message
    assert score.prompt_tokens  # the run's usage reached the end record
    # its wrapped model logged each request (question, search, recommend), the model named
    assert score.agent_model == "function:scripted_move:"
    assert score.model_usage["agent"]["calls"] == 3


def test_the_pydantic_ai_example_plays_against_an_http_server(tmp_path: Path) -> None:
    pytest.importorskip("pydantic_ai.mcp", reason="pydantic-ai-slim[mcp] is not installed")
    logs = tmp_path / "logs"
    with http_server_process(logs) as server:
        args = ["--model", "function", "--url", server.url, "--log-dir", str(logs)]
        done = _example("pydantic_ai_mcp.py", *args, "--task", "t005", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    score = only_score(logs)
    assert (score.label, score.task_id, score.end_reason) == (
        "pydantic-ai:function",
        "t005",
        "recommended",
    )
    assert f"score: reward {score.reward:.2f}" in done.stdout


@pytest.mark.parametrize(
    ("name", "args", "line"),
    [
        (
            "litellm_mcp.py",
            ["--model", "openai/gpt-4o-mini"],
            "error: --model openai/gpt-4o-mini: OPENAI_API_KEY not set (export it, or put it "
            "in .env); to run offline without a key: --model mock",
        ),
        (
            "openai_agents_sdk.py",
            [],
            "error: --model gpt-4.1-mini: OPENAI_API_KEY not set (export it, or put it in "
            ".env); to run offline without a key: --model scripted",
        ),
        (
            "pydantic_ai_mcp.py",
            [],
            "error: --model openai:gpt-4o-mini: OPENAI_API_KEY not set (export it, or put it "
            "in .env); to run offline without a key: --model function",
        ),
        (
            "pydantic_ai_mcp.py",
            ["--model", "test"],
            "error: --model test: pydantic-ai's TestModel calls every tool with made-up "
            "arguments and cannot play an episode; to play offline: --model function",
        ),
    ],
)
def test_without_a_key_each_example_stops_with_one_line(
    name: str, args: list[str], line: str, tmp_path: Path
) -> None:
    if name == "pydantic_ai_mcp.py":
        pytest.importorskip("pydantic_ai.mcp", reason="pydantic-ai-slim[mcp] is not installed")
    done = _example(name, *args, "--log-dir", "logs", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [line]
    assert not (tmp_path / "logs").exists()
