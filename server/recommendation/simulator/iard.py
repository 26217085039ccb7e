"""The rule-based user's acts in the IARD vocabulary the log records.

The dialogue policy decides `Act`s (acts.py) in its own, finer vocabulary; this maps
each onto the UserSimCRS user intents, with the slot (an item field), the value as the
user stated it and the item it is about. Stated constraints become one `disclose` each;
a hint at a hidden or unstated constraint is not a disclosure (it states no value).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.trajectory.dialogue_acts import DialogueAct, constraint_value

K = ActKind


def disclose(c: Constraint) -> DialogueAct:
    return DialogueAct(intent="disclose", slot=c.field, value=constraint_value(c))


def _items(act: Act) -> list[str]:
    return [act.item_id] if act.item_id else []


def _simple(intent: str, slot_of_attribute: bool = False) -> Callable[[Act], list[DialogueAct]]:
    def make(act: Act) -> list[DialogueAct]:
        slot = act.attribute.value if slot_of_attribute and act.attribute else None
        return [DialogueAct(intent=intent, slot=slot, items=_items(act))]

    return make


def _stated(act: Act) -> list[DialogueAct]:
    return [disclose(c) for c in act.constraints]


def _verdict(intent: str) -> Callable[[Act], list[DialogueAct]]:
    """accept / reject of an item, with any stated constraints given as reasons."""

    def make(act: Act) -> list[DialogueAct]:
        return [DialogueAct(intent=intent, items=_items(act)), *_stated(act)]

    return make


def _soft(act: Act) -> list[DialogueAct]:
    return [DialogueAct(intent="disclose", slot="preference", value=o) for o in act.options[:1]]


_MAP: dict[ActKind, Callable[[Act], list[DialogueAct]]] = {
    K.INFORM: _stated,
    K.NO_PREFERENCE: _simple("neutral", slot_of_attribute=True),
    K.SOFT: _soft,
    K.VAGUE: _simple("dont_know", slot_of_attribute=True),
    K.HISTORY: _simple("disclose", slot_of_attribute=True),
    K.NOTHING_ELSE: _simple("no", slot_of_attribute=True),
    K.ACCEPT: _verdict("accept"),
    K.REJECT: _verdict("reject"),
    K.SEEN: _simple("seen"),
    K.NOT_SEEN: lambda act: [DialogueAct(intent="no", slot="seen", items=_items(act))],
    K.ONE_AT_A_TIME: _simple("other"),
    K.EMPTY: _simple("other"),
    K.OFF_TOPIC: _simple("other"),
    K.GREETING: lambda act: _stated(act) or [DialogueAct(intent="other")],
    K.UNCLEAR: lambda act: [DialogueAct(intent="other"), *_stated(act)],
    K.ACK: _simple("other"),
    K.ALREADY_ACCEPTED: _simple("other"),
    K.LEAVE: _simple("stop"),
    K.COMMIT_HAPPY: _verdict("accept"),
    K.COMMIT_SEEN: _simple("seen"),
    K.COMMIT_WRONG: _verdict("reject"),
    K.COMMIT_UNKNOWN: _simple("other"),
    K.ABSTAIN_OK: _simple("yes"),
    K.ABSTAIN_SAD: _simple("no"),
}


def iard_acts(acts: Iterable[Act]) -> tuple[DialogueAct, ...]:
    """The IARD acts of one turn's policy acts, in order."""
    return tuple(d for act in acts for d in _MAP[act.kind](act))


def opening_acts(volunteer: Iterable[Constraint]) -> tuple[DialogueAct, ...]:
    """start, then a disclose per volunteered constraint."""
    return (DialogueAct(intent="start"), *(disclose(c) for c in volunteer))
