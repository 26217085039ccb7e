"""The `--suite` option of the commands that play or plan a suite (serve, run, play, plan)."""

from __future__ import annotations

from typing import Annotated

import typer

from taurec.tasks.shipped import SUITE_CHOICES

SuiteOpt = Annotated[
    str, typer.Option("--suite", help=f"{SUITE_CHOICES[0].upper()}{SUITE_CHOICES[1:]}.")
]
