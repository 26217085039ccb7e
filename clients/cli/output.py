"""What every `taurec` command prints with: a console that does not wrap piped output at
80 columns, the one-line error that exits with code 2, and the note on a generated suite
that repeats a shipped one."""

from __future__ import annotations

import os
from pathlib import Path
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


def note_shipped_twins(out: Path, seed: int) -> None:
    """One line on stderr when the suite just written to `out` holds tasks of a shipped
    suite (a generator run with the seed and data that suite was made with): they are
    public, and an agent may have been tuned on them."""
    from taurec.tasks.shipped import shipped_twins

    twins = shipped_twins(out)
    if twins is not None:
        spec, same, written = twins
        typer.echo(
            f"note: {same} of the {written} tasks are tasks of the shipped suite {spec} (same "
            f"data and --seed {seed}), public ones; pass another --seed for tasks of your own",
            err=True,
        )
