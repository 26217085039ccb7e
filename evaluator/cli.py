"""The `evaluator` command: deterministic, LLM-free scoring of episode logs."""

from __future__ import annotations

from importlib.metadata import version

import typer

app = typer.Typer(
    name="evaluator",
    help="Score taurec episode logs deterministically (no LLM calls).",
    no_args_is_help=True,
    add_completion=False,
)


@app.command("version")
def show_version() -> None:
    """Print the installed taurec version."""
    typer.echo(version("taurec"))


def main() -> None:
    app()
