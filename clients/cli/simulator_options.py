"""The simulated-user options `taurec run` and `taurec serve` share."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class SimulatorName(StrEnum):
    RULE = "rule"
    ABUS = "abus"
    AGENDA_REQUESTS = "agenda-requests"
    LLM_SP = "llm-sp"
    LLM_DP = "llm-dp"
    LLM = "llm"

    @property
    def calls_an_llm(self) -> bool:
        return self in (SimulatorName.LLM, SimulatorName.LLM_SP, SimulatorName.LLM_DP)


SimulatorOpt = Annotated[
    SimulatorName,
    typer.Option(
        "--simulator",
        help="The simulated user: rule, abus (UserSimCRS's agenda-based user), "
        "agenda-requests (an agenda user that asks about titles first), llm-sp / llm-dp "
        "(UserSimCRS's single- / dual-prompt LLM users) or llm (an LLM words the rule "
        "user's decisions).",
    ),
]
SimulatorModelOpt = Annotated[
    str | None,
    typer.Option(
        "--simulator-model", help="--simulator llm, llm-sp or llm-dp: a litellm model string."
    ),
]
AgendaDialoguesOpt = Annotated[
    Path | None,
    typer.Option(
        "--agenda-dialogues",
        help="--simulator abus or agenda-requests: episode logs (a folder), annotated "
        "dialogues (JSONL) or DialogueKit JSON (e.g. UserSimCRS's IARD file); the 'other' "
        "case samples from their transition matrices.",
    ),
]
AbusSchemaOpt = Annotated[
    Path | None,
    typer.Option(
        "--abus-schema",
        help="--simulator abus: its intent schema (YAML; default: the IARD one).",
    ),
]
