"""The simulated-user options `taurec run` and `taurec serve` share."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class SimulatorName(StrEnum):
    RULE = "rule"
    AGENDA = "agenda"
    LLM = "llm"


SimulatorOpt = Annotated[
    SimulatorName,
    typer.Option("--simulator", help="The simulated user: rule, agenda (UserSimCRS) or llm."),
]
SimulatorModelOpt = Annotated[
    str | None,
    typer.Option("--simulator-model", help="--simulator llm: a litellm model string."),
]
AgendaDialoguesOpt = Annotated[
    Path | None,
    typer.Option(
        "--agenda-dialogues",
        help="--simulator agenda: episode logs (a folder) or a JSONL file of annotated "
        "dialogues; the 'other' case samples from their transition matrices.",
    ),
]
