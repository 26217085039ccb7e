"""The simulated-user options `taurec run` and `taurec serve` share."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from taurec.server.settings import ServerSettings


class SimulatorName(StrEnum):
    RULE = "rule"
    ABUS = "abus"
    AGENDA_REQUESTS = "agenda-requests"
    LLM = "llm"
    LLM_SP = "llm-sp"
    LLM_DP = "llm-dp"

    @property
    def calls_an_llm(self) -> bool:
        return self in (SimulatorName.LLM, SimulatorName.LLM_SP, SimulatorName.LLM_DP)

    def model_problem(self, model: str | None) -> str | None:
        """One line naming the flags when this --simulator and --simulator-model do not go
        together (the settings' own error names the field, simulator_model); else None."""
        if self.calls_an_llm and model is None:
            return (
                f"--simulator {self.value} needs --simulator-model MODEL (a litellm model "
                "string, e.g. openai/gpt-4o-mini)"
            )
        if not self.calls_an_llm and model is not None:
            return (
                "--simulator-model applies to --simulator llm, llm-sp and llm-dp only, not "
                f"--simulator {self.value}"
            )
        return None


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


class AbusSlotValues(StrEnum):
    HISTORY = "history"
    CATALOG = "catalog"


AbusSlotValuesOpt = Annotated[
    AbusSlotValues,
    typer.Option(
        "--abus-slot-values",
        help="--simulator abus, asked about a slot it holds no need for: 'history' (a value its "
        "rated history likes, else don't know) or 'catalog' (UserSimCRS's: a catalog value it "
        "likes, up to 10 tries).",
    ),
]
NlgModelOpt = Annotated[
    str | None,
    typer.Option(
        "--nlg-model",
        help="--simulator rule, abus or agenda-requests: word the user's replies with this "
        "litellm model (what the user decides is unchanged).",
    ),
]


def simulator_files_problem(settings: ServerSettings) -> str | None:
    """One line saying what is wrong with the files the simulator options name (the intent
    schema, the annotated dialogues), checked before anything runs; None when they read."""
    from taurec.catalog.errors import DataError

    if settings.abus_schema is not None:
        from taurec.server.recommendation.simulator.intent_schema import IntentSchema

        try:
            IntentSchema.load(settings.abus_schema)
        except DataError as exc:
            return f"--abus-schema: {exc}"
    if settings.agenda_dialogues is not None:
        from taurec.tasks.dialogues.reading import read_annotated_dialogues

        try:
            read_annotated_dialogues(settings.agenda_dialogues)
        except (DataError, OSError) as exc:
            return f"--agenda-dialogues: {exc}"
    return None
