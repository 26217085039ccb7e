"""The CLIs start without the heavy stack: `taurec --help` and `evaluator --help` list
every command, importing either CLI module loads none of the heavy libraries, and neither
does any command's own `--help` (the property that keeps start-up fast;
bench/cli_startup.py measures the time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from importlib.metadata import version

import pytest
import typer
from support.hang_guard import HANG_GUARD_S
from typer.testing import CliRunner

from taurec.clients.cli.main import COMMANDS, app, load_command
from taurec.evaluator.cli.main import app as evaluator_app

HEAVY = ("mcp", "numpy", "scipy", "bm25s", "litellm", "uvicorn", "pydantic", "plotly")

# Runs `<program> <command...> --help` for every path read from stdin, each in a child
# forked from one process that has imported only the two CLI modules, so each path starts
# from the same light state; prints one JSON line per path: the heavy modules it loaded
# and whether the help was shown.
HELP_PROBE = f"""
import contextlib, io, json, os, sys
from taurec.clients.cli.main import app as taurec
from taurec.evaluator.cli.main import app as evaluator
apps = {{"taurec": taurec, "evaluator": evaluator}}
for path in json.load(sys.stdin):
    sys.stdout.flush()
    child = os.fork()
    if child == 0:
        shown = io.StringIO()
        try:
            with contextlib.redirect_stdout(shown), contextlib.redirect_stderr(io.StringIO()):
                apps[path[0]]([*path[1:], "--help"], prog_name=path[0], standalone_mode=False)
        except BaseException as exc:
            print(f"{{path}}: {{exc!r}}", file=sys.stderr)
        heavy = [m for m in {HEAVY!r} if m in sys.modules]
        line = {{"path": path, "heavy": heavy, "usage": "Usage:" in shown.getvalue()}}
        os.write(1, (json.dumps(line) + "\\n").encode())
        os._exit(0)
    os.waitpid(child, 0)
"""


def _command_paths() -> list[tuple[str, ...]]:
    """Every command path of both programs, groups and their subcommands included."""
    paths: list[tuple[str, ...]] = [("taurec",)]

    def walk(command: object, path: tuple[str, ...]) -> None:
        paths.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*path, name))

    for name in COMMANDS:
        walk(load_command(name), ("taurec", name))
    walk(typer.main.get_group(evaluator_app), ("evaluator",))
    return paths


COMMAND_PATHS = _command_paths()


@cache
def _help_probe() -> dict[tuple[str, ...], dict]:
    """What each command path's `--help` loaded, from one subprocess for all paths."""
    done = subprocess.run(
        [sys.executable, "-c", HELP_PROBE],
        input=json.dumps(COMMAND_PATHS),
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_GUARD_S,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == len(COMMAND_PATHS), done.stderr
    return {tuple(line["path"]): line for line in lines}


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


@pytest.mark.parametrize("module", ["taurec.clients.cli.main", "taurec.evaluator.cli.main"])
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


def test_the_command_paths_cover_every_command_and_subcommand() -> None:
    names = {" ".join(path) for path in COMMAND_PATHS}
    expected = ["taurec run", "taurec tasks generate-streams", "taurec catalog build-tmdb"]
    expected += ["taurec plan new", "taurec a2a-demo", "evaluator score", "evaluator judge"]
    assert set(expected) <= names


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the probe forks one child per command")
@pytest.mark.parametrize("path", COMMAND_PATHS, ids=" ".join)
def test_a_commands_help_loads_no_heavy_library(path: tuple[str, ...]) -> None:
    seen = _help_probe()[path]
    assert seen["usage"], f"{' '.join(path)} --help showed no usage"
    assert seen["heavy"] == [], f"{' '.join(path)} --help imports {', '.join(seen['heavy'])}"
