"""Annotated dialogues: who said what, and the dialogue acts each utterance carries.

One dialogue per line of a JSONL file:

    {"utterances": [{"participant": "agent", "intents": ["elicit"]},
                    {"participant": "user", "intents": ["disclose"]}]}

`intents` are taurec's (the IARD vocabulary of the log, lower case, see
taurec.tasks.trajectory.dialogue_acts); an utterance may also carry its `text` and its
full `acts` (intent, slot, value, items), and a dialogue its `id`, `metadata` and the
`outcome` its own labels record (whether the user took a recommendation, as the data set
says: ReDial's seeker answers, INSPIRED's accept/reject case, IARD's accepted
recommendations). When `acts` are given, `intents` may be left out: they are the acts'
intents in order.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from taurec.tasks.trajectory.dialogue_acts import AGENT_INTENTS, USER_INTENTS, DialogueAct

Participant = Literal["user", "agent"]
KNOWN_INTENTS = frozenset(USER_INTENTS) | frozenset(AGENT_INTENTS)


class AnnotatedUtterance(BaseModel):
    """One utterance of an annotated dialogue: who spoke, and the intents it carries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    participant: Participant = Field(description="'user' or 'agent'.")
    intents: tuple[str, ...] = Field(description="taurec intents, e.g. ['recommend'].")
    text: str | None = Field(default=None, description="What was said, when known.")
    acts: tuple[DialogueAct, ...] = Field(
        default=(), description="The full acts (intent, slot, value, items), when known."
    )
    reaction_to: str | None = Field(
        default=None,
        description="A user's reaction to the agent's commit of this item, which it had "
        "already been offered: accepting it again is not a second acceptance.",
    )

    @model_validator(mode="before")
    @classmethod
    def _intents_from_acts(cls, data: Any) -> Any:
        if isinstance(data, dict) and "intents" not in data and data.get("acts"):
            acts = data["acts"]
            data = {
                **data,
                "intents": [a["intent"] if isinstance(a, dict) else a.intent for a in acts],
            }
        return data

    @field_validator("intents")
    @classmethod
    def _known_intents(cls, intents: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [i for i in intents if i not in KNOWN_INTENTS]
        if unknown:
            raise ValueError(
                f"unknown intent {unknown[0]!r}; expected one of {', '.join(sorted(KNOWN_INTENTS))}"
            )
        return intents


class DialogueOutcome(BaseModel):
    """Whether the user took a recommendation, as a data set's own labels record it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    accepted: bool = Field(description="The user took a recommended title.")
    items: tuple[str, ...] = Field(default=(), description="The titles it took, when named.")
    source: str = Field(
        description="The labels it was read from, e.g. 'ReDial initiatorQuestions'."
    )


class AnnotatedDialogue(BaseModel):
    """One line of the annotated-dialogues JSONL format: {"utterances": [...]}."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    utterances: tuple[AnnotatedUtterance, ...] = Field(min_length=1)
    id: str | None = Field(default=None, description="The dialogue's id in its source.")
    metadata: dict[str, Any] = Field(default_factory=dict)
    outcome: DialogueOutcome | None = Field(
        default=None, description="What the data set's own labels say of its success."
    )
