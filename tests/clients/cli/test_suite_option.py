"""Every `--suite` option's help names the shipped suites (`ranking:builtin`, ...)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from taurec.clients.cli.main import app as taurec
from taurec.evaluator.cli.main import app as evaluator
from taurec.tasks.shipped import BUILTIN_SUITES


@pytest.mark.parametrize(
    ("app", "command"),
    [(taurec, "serve"), (taurec, "run"), (taurec, "play"), (taurec, "plan new"),
     (evaluator, "score"), (evaluator, "explain")],
)  # fmt: skip
def test_every_suite_option_names_the_shipped_suites(app: object, command: str) -> None:
    result = CliRunner().invoke(app, [*command.split(), "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.output.splitlines() if "--suite" in line]
    assert all(spec in line for spec in BUILTIN_SUITES), line
