"""What `taurec` and `evaluator` share as commands: start-up, `--version`, input errors.

- `load_env_file`: `.env` in the working folder is read into the environment (API keys
  for litellm, the server's token), never overriding a variable already set;
  python-dotenv is imported only when there is such a file, so start-up stays fast.
- `prepare`: that, and every log record scrubbed of secrets as it is made
  (taurec.tasks.trajectory.secrets).
- `add_version_option`: the program's `--version`.
- `CommandGroup`: the group class of both programs and of their groups of subcommands,
  so that a command's `--help` loads no more than the command's own module.
- `run_app`: click's own handling prints a usage line, a hint and a boxed message over
  several lines for a mistyped option or a bad value; `run_app` prints `error:
  <command>: <what was wrong> (see <command> --help)` and exits 2 instead. `--help` and
  `typer.Exit(code)` behave as before; an unexpected error prints Python's own traceback,
  full-width and greppable, scrubbed of secrets (an exception's text may hold an API
  key), and exits 1.

No `from __future__ import annotations` here: typer reads the `--version` option's
annotation at run time, and it names a callback local to `add_version_option`.
"""

import sys
import traceback
from pathlib import Path
from typing import Annotated

import typer
from typer._click import Context
from typer._click.exceptions import ClickException, UsageError
from typer.core import TyperGroup, TyperOption
from typer.exceptions import Abort

#: the exit code of every input error
USAGE_EXIT = 2

ENV_FILE = ".env"


def load_env_file(folder: Path | None = None) -> Path | None:
    """Load `<folder or cwd>/.env` without overriding set variables; the file, if read."""
    path = (folder or Path.cwd()) / ENV_FILE
    if not path.is_file():
        return None
    from dotenv import load_dotenv

    load_dotenv(path, override=False)
    return path


def prepare(app: typer.Typer) -> None:
    """Read `.env`; plain tracebacks unless stderr is a terminal; log records scrubbed of
    secrets (taurec.tasks.trajectory.secrets)."""
    from taurec.tasks.trajectory.secrets import scrub_log_records

    load_env_file()
    scrub_log_records()
    app.pretty_exceptions_enable = sys.stderr.isatty()


def add_version_option(app: typer.Typer, line: str) -> None:
    """Give `app` a `--version` that prints `line` followed by the installed version."""

    def print_version(value: bool) -> None:
        if value:
            from importlib.metadata import version

            typer.echo(f"{line} {version('taurec')}")
            raise typer.Exit()

    def options(
        show_version: Annotated[
            bool,
            typer.Option(
                "--version", is_eager=True, callback=print_version, help="Print the version."
            ),
        ] = False,
    ) -> None:
        """Options of the program itself."""

    app.callback()(options)


class CommandGroup(TyperGroup):
    """A group whose own `--help` flag, when not given, reads as False rather than None.

    typer checks a value that is not a bool through pydantic, so a None here would import
    pydantic for every command run through the group, `<group> <command> --help` included.
    """

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None and option.default is None:
            option.default = False
        return option


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
    except Exception:  # unexpected: Python's traceback, without a secret its text may hold
        from taurec.tasks.trajectory.secrets import scrub

        print(scrub(traceback.format_exc()), file=sys.stderr, end="")
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
