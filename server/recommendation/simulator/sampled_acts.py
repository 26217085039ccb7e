"""What the agenda user needs for UserSimCRS's sampled *other* case: which agent intents
each user intent expects, and how a sampled intent is filled from the need.

The case applies when an agent turn drew no response of its own and none of its intents
is one the user's last act expected; the user intents are then sampled from transition
matrices (transitions.py) and filled here.
"""

from __future__ import annotations

from typing import Final

from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.server.recommendation.simulator.agenda import Agenda
from taurec.server.recommendation.simulator.iard import disclose
from taurec.server.recommendation.simulator.nlu import FIELD_ATTRIBUTE, Attribute
from taurec.server.recommendation.simulator.preference_model import PreferenceModel
from taurec.tasks.trajectory.dialogue_acts import DialogueAct

K = ActKind

#: user intent -> the agent intents that answer it as expected (UserSimCRS's
#: `expected_agent_intents`); any other agent intent sends the user to the matrices.
EXPECTED_AGENT_INTENTS: Final[dict[str, frozenset[str]]] = {
    "inquire": frozenset({"answer"}),
    "accept": frozenset({"recommend", "other"}),
    "stop": frozenset(),
    **{
        i: frozenset({"elicit", "recommend", "inquire"})
        for i in ("start", "disclose", "reject", "seen", "dont_know", "neutral", "yes", "no")
    },
    "other": frozenset({"elicit", "recommend", "inquire"}),
}

#: the wording of sampled intents that take nothing from the need
PLAIN_WORDS: Final = {
    "dont_know": "I'm not sure.",
    "neutral": "No strong feelings either way.",
    "yes": "Yes.",
    "no": "No.",
}


def expects(last_user_intent: str, agent_intents: set[str]) -> bool:
    """Whether the agent's intents include one the user's last act expected."""
    return bool(agent_intents & EXPECTED_AGENT_INTENTS.get(last_user_intent, frozenset()))


def fresh_disclosure(
    facts: Agenda, preferences: PreferenceModel
) -> tuple[DialogueAct, Act | str] | None:
    """A sampled DISCLOSE, filled with a fact the user has not told yet (the belief-state
    test the right way round: upstream disclosed only what was already told): a
    constraint the user may volunteer, else a soft preference (those that would voice a
    hidden value are already left out), else a genre the history likes (only when the
    task puts no constraint on genres). Never a hidden or on_ask constraint: the task's
    reveal tags hold. None when every such fact is told. Records the fact as told."""
    fresh = [c for c in facts.volunteer if not facts.is_told(c)]
    if fresh:
        c = fresh[0]
        facts.tell(facts.key(c))
        return disclose(c), Act(K.INFORM, FIELD_ATTRIBUTE[c.field], (c,))
    soft = [(k, text) for k, text in facts.soft_for(None) if k not in facts.told]
    if soft:
        key, text = soft[0]
        facts.tell(key)
        return DialogueAct(intent="disclose", slot="preference", value=text), Act(
            K.SOFT, options=(text,)
        )
    if facts.on(Attribute.GENRE):  # a genre the task constrains is the task's to state
        return None
    liked = [g for g in preferences.liked_values("genres") if f"pref:{g}" not in facts.told]
    if not liked:
        return None
    facts.tell(f"pref:{liked[0]}")
    return (
        DialogueAct(intent="disclose", slot="genres", value=liked[0]),
        f"I usually enjoy {liked[0].lower()} movies.",
    )
