"""An `evaluator` command typed after `taurec` is a usage error that names the right
program; any other unknown command stays a plain usage error."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.hang_guard import HANG_GUARD_S

TAUREC = [sys.executable, "-m", "taurec.clients.cli.main"]


def _taurec(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TAUREC, *args], capture_output=True, text=True, timeout=HANG_GUARD_S, check=False
    )


@pytest.mark.parametrize("command", ["view", "score", "explain", "report"])
def test_an_evaluator_command_after_taurec_suggests_the_evaluator(command: str) -> None:
    done = _taurec(command, "logs/")
    assert done.returncode == 2
    assert done.stderr == (
        f"error: taurec: No such command {command!r}; did you mean 'evaluator {command}'? "
        "(see 'taurec --help')\n"
    )
    assert done.stdout == ""


def test_an_unknown_command_is_a_plain_usage_error() -> None:
    done = _taurec("vew")
    assert done.returncode == 2
    assert "No such command 'vew'" in done.stderr and "evaluator" not in done.stderr
