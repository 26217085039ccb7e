"""Running a typer app as a command: an input error is one line on stderr, exit 2.

click's own handling prints a usage line, a hint and a boxed message over several lines
for a mistyped option or a bad value. Both `taurec` and `evaluator` run through
`run_app` instead, which prints `error: <command>: <what was wrong> (see <command>
--help)` and exits 2; `--help`, `typer.Exit(code)` and unexpected errors behave as
before (an unexpected error still reaches typer's traceback hook).
"""

from __future__ import annotations

import sys

import typer
from typer._click.exceptions import ClickException, UsageError
from typer.exceptions import Abort

#: the exit code of every input error
USAGE_EXIT = 2


def usage_line(error: UsageError, prog: str) -> str:
    """The one line shown for a usage error: the command, what was wrong, where help is."""
    command = error.ctx.command_path if error.ctx is not None else prog
    message = " ".join(error.format_message().split())
    return f"error: {command}: {message} (see '{command} --help')"


def run_app(app: typer.Typer, prog: str) -> None:
    """Run `app` as the program `prog` and exit with its code."""
    try:
        code = app(standalone_mode=False, prog_name=prog)
    except UsageError as error:
        if error.format_message().strip():  # else: no arguments, and the help was shown
            print(usage_line(error, prog), file=sys.stderr)
        sys.exit(USAGE_EXIT)
    except ClickException as error:
        print(f"error: {' '.join(error.format_message().split())}", file=sys.stderr)
        sys.exit(error.exit_code)
    except Abort:
        print("Aborted.", file=sys.stderr)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
