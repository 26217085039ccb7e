"""`taurec serve` refuses bad settings with one line on stderr and exit code 2."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import typer
from pydantic import BaseModel
from typer.testing import CliRunner

from taurec.clients.cli.serve import serve
from taurec.server.settings import HttpSettings, ServerSettings

app = typer.Typer()
app.command()(serve)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--trial", "2"], "give task as well"),
        (["--suite", "no-such-suite"], "no such suite"),
        (["--task", "t999"], "t999"),
        (["--run-label", "a/b"], "run_label"),
    ],
)
def test_bad_settings_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert result.output.count("\n") == 1


def test_help_lists_the_options() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for option in ("--transport", "--host", "--port", "--suite", "--catalog", "--simulator",
                   "--log-dir", "--label", "--task", "--trial"):  # fmt: skip
        assert option in result.output


def test_a_port_in_use_is_one_line_with_exit_2() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["--transport", "http", "--port", str(port)])
    assert result.exit_code == 2, result.output
    assert f"--port {port}: cannot listen on 127.0.0.1:{port}" in result.output
    assert result.output.count("\n") == 1


def test_an_llm_user_without_its_key_is_one_line_with_exit_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["--simulator", "llm", "--simulator-model", "openai/gpt-4o-mini"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "--simulator-model openai/gpt-4o-mini: OPENAI_API_KEY not set" in result.output
    assert result.output.count("\n") == 1


def test_agenda_dialogues_without_annotated_dialogues_is_one_line_with_exit_2(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.jsonl").write_text('{"type": "header"}\n')
    args = ["--simulator", "agenda-requests", "--agenda-dialogues", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "--agenda-dialogues: " in result.output and "no annotated dialogues" in result.output
    assert result.output.count("\n") == 1


@pytest.mark.parametrize(
    ("option", "model", "field"),
    [
        ("max_request_bytes", HttpSettings, "max_request_bytes"),
        ("max_connections", HttpSettings, "max_connections"),
        ("keep_alive", HttpSettings, "keep_alive_seconds"),
        ("max_header_bytes", HttpSettings, "max_header_bytes"),
        ("max_message_chars", ServerSettings, "max_message_chars"),
        ("max_tool_calls_per_episode", ServerSettings, "max_tool_calls_per_episode"),
        ("max_open_per_client", ServerSettings, "max_open_per_client"),
        ("idle_timeout", ServerSettings, "idle_timeout_seconds"),
    ],
)
def test_each_limits_default_is_the_settings_own(
    option: str, model: type[BaseModel], field: str
) -> None:
    default = inspect.signature(serve).parameters[option].default
    assert default == model.model_fields[field].default
