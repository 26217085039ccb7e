"""Dialogue acts: what each message meant, in the IARD vocabulary of UserSimCRS.

A `user_message` or `agent_message` record may carry `acts` (a list of `DialogueAct`)
and `acts_by` (who read them off: the simulator itself, an LLM, or the agent-side NLU).
The dialogue metrics (SR, SRRR, RDL) and the simulator-fault audit are computed from
these alone. Logs written before acts existed simply have none.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from taurec.tasks.recommendation.constraint import Constraint

#: IARD user intents, lower case (UserSimCRS's ACC, REJ, SEE, NRE, PRO, INQ, BYE, ...).
USER_INTENTS: Final = (
    "start",
    "disclose",
    "inquire",
    "accept",
    "reject",
    "seen",
    "dont_know",
    "neutral",
    "yes",
    "no",
    "stop",
    "other",
)
#: Agent intents: REC-S/REC-E -> recommend, REQ/CLA -> elicit, INQ -> inquire, ANS -> answer.
AGENT_INTENTS: Final = ("recommend", "elicit", "inquire", "answer", "other")

ActsBy = Literal["rule", "llm", "llm-classifier", "nlu", "llm-nlu"]
ACTS_BY: Final = ("rule", "llm", "llm-classifier", "nlu", "llm-nlu")


class DialogueAct(BaseModel):
    """One act: an intent, optionally about a slot (an item field or a topic such as
    'history'), a value as stated, and the catalog items it is about."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    intent: str = Field(
        min_length=1, description="A user or agent intent (see docs/usersimcrs.md)."
    )
    slot: str | None = Field(default=None, description="The slot it is about, e.g. 'genres'.")
    value: str | None = Field(default=None, description="The value stated for the slot.")
    items: tuple[str, ...] = Field(default=(), description="Catalog item ids it is about.")

    def record(self) -> dict[str, object]:
        return {
            "intent": self.intent,
            "slot": self.slot,
            "value": self.value,
            "items": list(self.items),
        }


def acts_record(acts: Iterable[DialogueAct]) -> list[dict[str, object]]:
    return [a.record() for a in acts]


def constraint_value(c: Constraint) -> str:
    """A constraint's value as a `disclose` act states it: the operator and the operand,
    e.g. '<= 100', 'contains Comedy', 'in PG, PG-13', 'between 1990 and 1999'."""
    v = c.value
    if isinstance(v, list):
        joined = " and ".join(map(str, v)) if c.op.value == "between" else ", ".join(map(str, v))
        return f"{c.op.value} {joined}"
    return f"{c.op.value} {v}"


def _operands(c: Constraint) -> list[str]:
    values = c.value if isinstance(c.value, list) else [c.value]
    out = []
    for v in values:
        text = str(v).casefold()
        # a date is stated well enough by its year ("from 1995 on")
        out.append(text[:4] if c.field == "release_date" and len(text) >= 4 else text)
    return out


def stated_forms(c: Constraint) -> tuple[str, tuple[str, ...]]:
    """What a disclosed value is compared with to tell whether it states `c`: the
    casefolded canonical form of `c` (a value equal to it does) and its casefolded
    operands (a text naming every one does, so an LLM's 'comedies, please' states
    'contains Comedy')."""
    return constraint_value(c).casefold(), tuple(_operands(c))
