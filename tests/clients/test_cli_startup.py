"""The CLIs start without the heavy stack: `taurec --help` and `evaluator --help` list
every command, and importing either CLI module loads none of the heavy libraries (the
property that keeps start-up fast; bench/cli_startup.py measures the time)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest
import typer
from support.hang_guard import HANG_GUARD_S
from typer.testing import CliRunner

from taurec.clients.cli import COMMANDS, app, load_command
from taurec.evaluator.cli import app as evaluator_app

HEAVY = ("mcp", "numpy", "scipy", "bm25s", "litellm", "uvicorn", "pydantic", "plotly")


def _imported_by(module: str) -> list[str]:
    code = f"import sys, {module}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_GUARD_S,
    )
    return done.stdout.split()


@pytest.mark.parametrize("module", ["taurec.clients.cli", "taurec.evaluator.cli"])
def test_importing_the_cli_module_loads_no_heavy_library(module: str) -> None:
    assert _imported_by(module) == []


def test_taurec_help_lists_every_command() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for name in ("serve", "run", "play", "tasks", "catalog", "plan", "crs-demo", "a2a-demo"):
        assert f" {name} " in result.stdout, name


def test_evaluator_help_lists_every_command() -> None:
    result = CliRunner().invoke(evaluator_app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    names = [c.name for c in typer.main.get_group(evaluator_app).commands.values()]
    assert {"score", "report", "judge"} <= set(names)
    for name in names:
        assert f" {name} " in result.stdout, name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_listed_summary_is_the_commands_own_first_help_paragraph(name: str) -> None:
    command = load_command(name)
    assert command.name == name
    first = (command.help or "").strip().split("\n\n")[0]
    assert " ".join(line.strip() for line in first.splitlines()) == COMMANDS[name].summary


def test_a_command_loaded_on_demand_runs_with_its_own_options() -> None:
    result = CliRunner().invoke(app, ["plan", "new", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "--suite" in result.stdout


def test_taurec_version_prints_the_installed_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"taurec {version('taurec')}"


def test_an_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["nope"])
    assert result.exit_code == 2 and "No such command" in result.output
