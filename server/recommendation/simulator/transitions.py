"""Transition matrices of UserSimCRS's *other* case, built from annotated dialogues.

An annotated dialogue is a sequence of utterances, each with its speaker and intents
(taurec's episode logs are such dialogues: both sides' messages carry IARD acts). Each
agent utterance directly followed by a user utterance is one transition, from the agent's
intents to the user's (the user's intents in order, distinct, joined with "+": user
intents such as `dont_know` hold an underscore):

- the single-intent matrix counts it once under each distinct agent intent;
- the compound matrix counts it under the agent's distinct intents, sorted and joined
  with "_", when there are two or more.

Rows are normalised to probabilities. `sample` tries the compound row first, then the
single-intent row of each agent intent (the first intent, in sorted order, that has one).
Pure: no files, no global random state (the caller passes a seeded `random.Random`).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import pairwise

from pydantic import BaseModel, ConfigDict, Field

from taurec.tasks.dialogues.format import AnnotatedDialogue

Row = dict[str, float]


class TransitionMatrices(BaseModel):
    """agent intent(s) -> {user intents joined with "+": probability}, and the counts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    single: dict[str, Row] = Field(default_factory=dict)
    compound: dict[str, Row] = Field(default_factory=dict)
    transitions: int = Field(default=0, description="Agent -> user utterance pairs counted.")

    def row(self, agent_intents: Iterable[str]) -> Row | None:
        """The row to sample from: the compound one if there is one, else single."""
        distinct = sorted(set(agent_intents))
        if len(distinct) > 1 and (row := self.compound.get("_".join(distinct))):
            return row
        return next((self.single[i] for i in distinct if i in self.single), None)

    def sample(self, agent_intents: Iterable[str], rng: random.Random) -> tuple[str, ...]:
        """User intents drawn for these agent intents; () when no row applies."""
        row = self.row(agent_intents)
        if not row:
            return ()
        keys = sorted(row)
        (chosen,) = rng.choices(keys, weights=[row[k] for k in keys])
        return tuple(chosen.split("+")) if chosen else ()


def _normalised(counts: dict[str, Counter[str]]) -> dict[str, Row]:
    out = {}
    for key in sorted(counts):
        total = sum(counts[key].values())
        out[key] = {u: n / total for u, n in sorted(counts[key].items())}
    return out


def _user_key(intents: Sequence[str]) -> str:
    return "+".join(dict.fromkeys(intents))


def transition_matrices(dialogues: Iterable[AnnotatedDialogue]) -> TransitionMatrices:
    """The single-intent and compound matrices of these dialogues."""
    single: dict[str, Counter[str]] = defaultdict(Counter)
    compound: dict[str, Counter[str]] = defaultdict(Counter)
    n = 0
    for dialogue in dialogues:
        for agent, user in pairwise(dialogue.utterances):
            if agent.participant != "agent" or user.participant != "user":
                continue
            agent_intents = sorted(set(agent.intents))
            if not agent_intents or not user.intents:
                continue
            reply = _user_key(user.intents)
            n += 1
            for intent in agent_intents:
                single[intent][reply] += 1
            if len(agent_intents) > 1:
                compound["_".join(agent_intents)][reply] += 1
    return TransitionMatrices(
        single=_normalised(single), compound=_normalised(compound), transitions=n
    )
