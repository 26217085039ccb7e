"""What every `taurec` command prints with: a console that does not wrap piped output at
80 columns, and the one-line error that exits with code 2."""

from __future__ import annotations

import os
from typing import NoReturn

import typer
from rich.console import Console


def console() -> Console:
    # Piped output is read in files and CI logs: do not wrap it at 80 columns.
    wide = not os.isatty(1) and "COLUMNS" not in os.environ
    return Console(width=140 if wide else None, highlight=False)


def fail(message: object) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)
