"""Input errors on the command line: one line on stderr naming what was wrong, exit 2."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.hang_guard import HANG_GUARD_S


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _ENTRY, *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )


# each entry point as installed: `taurec` runs clients.cli.main, `evaluator` evaluator.cli.main
_ENTRY = (
    "import sys; from importlib import import_module; "
    "prog = sys.argv.pop(1); sys.argv[0] = prog; "
    "module = {'taurec': 'taurec.clients.cli.main', 'evaluator': 'taurec.evaluator.cli.main'}[prog]; "
    "import_module(module).main()"
)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("taurec", "run", "--concurrency", "abc"), "--concurrency"),
        (("taurec", "runn"), "runn"),
        (("taurec", "run", "--no-such-option"), "--no-such-option"),
        (("evaluator", "score", "--workers", "x", "logs"), "--workers"),
        (("evaluator", "score"), "LOGDIRS"),
    ],
)
def test_an_input_error_is_one_line_naming_it_with_exit_2(
    args: tuple[str, ...], named: str
) -> None:
    done = _run(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: {args[0]}")
    assert named.lower() in lines[0].lower()
    assert f"'{args[0]}" in lines[0] and "--help'" in lines[0]  # where help is


def test_no_arguments_show_the_help_and_exit_2_without_an_error_line() -> None:
    done = _run("evaluator")
    assert done.returncode == 2
    assert "Usage" in done.stdout + done.stderr
    assert "error:" not in done.stderr


def test_help_and_version_still_exit_0() -> None:
    assert _run("taurec", "--version").returncode == 0
    helped = _run("evaluator", "score", "--help")
    assert helped.returncode == 0 and "Usage" in helped.stdout


def test_evaluator_version_prints_the_installed_version() -> None:
    from importlib.metadata import version

    done = _run("evaluator", "--version")
    assert done.returncode == 0 and version("taurec") in done.stdout
