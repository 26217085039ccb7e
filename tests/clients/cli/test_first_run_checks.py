"""A first run cannot go wrong silently: keys are checked before the first episode, a
refused key stops the run, `.env` is read, tracebacks are not squeezed."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import subprocess
import sys
from pathlib import Path
from typing import Any

import litellm
import pytest
import typer
from typer.testing import CliRunner

from taurec.clients.agents.llm import LLMAgent, LLMAgentSettings
from taurec.clients.cli.main import app
from taurec.clients.cli.startup import load_env_file, prepare
from taurec.clients.runner import run_agent

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, ["run", "--tasks", "t001", "--trials", "1", *args])


def test_a_missing_agent_key_stops_before_the_first_episode_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = _run("--agent", "llm", "--model", "openai/gpt-4o-mini", "--log-dir", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert "OPENAI_API_KEY not set" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.rglob("*.jsonl"))


def test_a_missing_simulator_key_stops_before_the_first_episode_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    args = ["--simulator", "llm", "--simulator-model", "anthropic/claude-3-5-haiku-latest"]
    result = _run(*args, "--log-dir", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert "--simulator-model" in result.stderr and "ANTHROPIC_API_KEY" in result.stderr
    assert not list(tmp_path.rglob("*.jsonl"))


def test_a_log_folder_that_is_a_file_is_one_line_with_exit_2(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# hello\n")
    result = _run("--out", str(readme))
    assert result.exit_code == 2, result.output
    assert "is a file; expected a folder" in result.stderr and "Traceback" not in result.stderr
    assert readme.read_text() == "# hello\n"


class Refusing:
    """A completion that refuses the key, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, **kwargs: Any) -> Any:
        self.calls += 1
        raise litellm.AuthenticationError("invalid api key", llm_provider="openai", model="m")


def test_a_refused_key_is_not_retried_and_stops_the_run(tmp_path: Path) -> None:
    refusing = Refusing()
    agent = LLMAgent(LLMAgentSettings(model="openai/gpt-4o-mini", completion=refusing))
    tasks = ["t001", "t004", "t015"]
    report = run_agent(agent, tasks=tasks, out=tmp_path, concurrency=1, quiet=True)
    assert refusing.calls == 1 and len(report.results) == 1
    assert report.failure is not None and "AuthenticationError" in report.failure
    assert "the run stopped" in report.failure


def test_env_file_in_the_working_folder_is_loaded_without_overriding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("TAUREC_TEST_FROM_ENV_FILE", "TAUREC_TEST_ALREADY_SET"):
        monkeypatch.setenv(name, "placeholder")  # restored (removed) after the test
        monkeypatch.delenv(name)
    monkeypatch.setenv("TAUREC_TEST_ALREADY_SET", "from the shell")
    (tmp_path / ".env").write_text(
        "TAUREC_TEST_FROM_ENV_FILE=from-the-file\nTAUREC_TEST_ALREADY_SET=from-the-file\n"
    )
    monkeypatch.chdir(tmp_path)
    assert load_env_file() == tmp_path / ".env"
    assert os.environ["TAUREC_TEST_FROM_ENV_FILE"] == "from-the-file"
    assert os.environ["TAUREC_TEST_ALREADY_SET"] == "from the shell"


def test_no_env_file_is_no_error(tmp_path: Path) -> None:
    assert load_env_file(tmp_path) is None


def test_tracebacks_are_pythons_own_when_stderr_is_not_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    some_app = typer.Typer()
    prepare(some_app)
    assert some_app.pretty_exceptions_enable is False


def test_an_unexpected_error_prints_a_full_width_traceback_into_a_file(tmp_path: Path) -> None:
    script = (
        "import typer\n"
        "from taurec.clients.cli.startup import prepare\n"
        "app = typer.Typer()\n"
        "@app.command()\n"
        "def boom() -> None:\n"
        "    raise RuntimeError('a' * 150)\n"
        "prepare(app)\n"
        "app()\n"
    )
    env = {**os.environ, "COLUMNS": "25", "TERMINAL_WIDTH": "25"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert f"RuntimeError: {'a' * 150}" in done.stderr


def test_server_log_tracebacks_are_full_width_when_stderr_is_redirected(tmp_path: Path) -> None:
    script = (
        "import logging, typer\n"
        "from taurec.clients.cli.startup import prepare\n"
        "from taurec.server.app import build_server\n"
        "from taurec.server.settings import ServerSettings\n"
        "prepare(typer.Typer())\n"
        "build_server(ServerSettings(log_dir='logs'))  # the MCP server sets up its logging\n"
        "try:\n"
        "    raise RuntimeError('b' * 150)\n"
        "except RuntimeError:\n"
        "    logging.getLogger('taurec.server.recommendation.episode').exception('start_episode failed')\n"
    )
    env = {**os.environ, "COLUMNS": "25"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "ERROR taurec.server.recommendation.episode: start_episode failed" in done.stderr
    assert f"RuntimeError: {'b' * 150}" in done.stderr
