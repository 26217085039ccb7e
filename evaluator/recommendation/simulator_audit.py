"""The simulator-fault audit: where did the simulated user contradict its own task?

From the user's logged acts and the task's constraints and reveal tags, per message:

- accepted_violating: `accept` of an item that breaks a constraint;
- rejected_satisfying: `reject` of an unwatched item that meets every constraint;
- stated_hidden: `disclose` of a hidden constraint's value (and of no stated one's);
- stated_wrong: `disclose` on a constrained field of a value no constraint on it has.

A fault is the simulator's, not the agent's: a reader can tell the two failures apart.
Pure: (task, events, catalog) -> faults.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.constraint import Constraint, Reveal
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.dialogue_acts import constraint_value, states

FaultKind = Literal["accepted_violating", "rejected_satisfying", "stated_hidden", "stated_wrong"]

#: Slot names an LLM (or another harness) may use for an item field.
SLOT_FIELDS: Final = {
    "genre": "genres",
    "year": "release_date",
    "actor": "cast",
    "actors": "cast",
    "length": "runtime",
    "keyword": "keywords",
    "language": "original_language",
    "service": "streaming_services",
    "services": "streaming_services",
    "maturity": "content_rating",
}


_AUDITED: Final = frozenset({"accept", "reject", "disclose"})


@dataclass(frozen=True)
class SimulatorFault:
    kind: FaultKind
    seq: int  # the log seq of the user message at fault
    detail: str


def _title(catalog: Catalog, item_id: str) -> str:
    item = catalog.get(item_id)
    return f"{item.title!r} ({item_id})" if item else item_id


def _stated(value: str, on_field: list[Constraint]) -> list[Constraint]:
    exact = [c for c in on_field if constraint_value(c).casefold() == value.casefold()]
    return exact or [c for c in on_field if states(value, c)]


def _act_faults(
    act: dict[str, Any], seq: int, task: RecommendationTask, catalog: Catalog
) -> Iterable[SimulatorFault]:
    intent = act.get("intent")
    if intent in ("accept", "reject"):
        for item_id in act.get("items") or ():
            item = catalog.get(item_id)
            if item is None:
                continue
            broken = [c for c in task.constraints if not c.holds(item)]
            if intent == "accept" and broken:
                why = "; ".join(f"{c.field} {constraint_value(c)}" for c in broken)
                yield SimulatorFault(
                    "accepted_violating",
                    seq,
                    f"accepted {_title(catalog, item_id)}, which breaks {why}",
                )
            elif intent == "reject" and not broken and item_id not in task.user.watched_ids:
                yield SimulatorFault(
                    "rejected_satisfying",
                    seq,
                    f"rejected {_title(catalog, item_id)}, which meets every constraint",
                )
    elif intent == "disclose" and act.get("slot") and act.get("value"):
        slot = str(act["slot"]).casefold()
        field = SLOT_FIELDS.get(slot, slot)
        on_field = [c for c in task.constraints if c.field == field]
        if not on_field:
            return  # a preference the task says nothing about
        stated = _stated(str(act["value"]), on_field)
        if not stated:
            yield SimulatorFault(
                "stated_wrong",
                seq,
                f"stated {field} {act['value']!r}, which no constraint on it says",
            )
        elif all(c.reveal is Reveal.HIDDEN for c in stated):
            yield SimulatorFault(
                "stated_hidden", seq, f"stated {field} {act['value']!r}, a hidden constraint"
            )


def message_faults(
    task: RecommendationTask, message: dict[str, Any], catalog: Catalog
) -> list[SimulatorFault]:
    """The faults of one user message record."""
    return [
        f
        for act in message.get("acts") or ()
        if act["intent"] in _AUDITED  # most acts cannot contradict the task: skip them fast
        for f in _act_faults(act, message["seq"], task, catalog)
    ]


def audit(
    task: RecommendationTask, events: Iterable[dict[str, Any]], catalog: Catalog
) -> list[SimulatorFault]:
    """Every fault in the user messages of one episode, in log order."""
    return [
        fault
        for ev in events
        if ev["type"] == "user_message"
        for fault in message_faults(task, ev, catalog)
    ]
