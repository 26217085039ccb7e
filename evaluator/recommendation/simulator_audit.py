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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal
from weakref import WeakKeyDictionary

from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.constraint import Constraint, Reveal
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.dialogue_acts import constraint_value, stated_forms

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


@dataclass(frozen=True)
class SimulatorFault:
    kind: FaultKind
    seq: int  # the log seq of the user message at fault
    detail: str


def _title(catalog: Catalog, item_id: str) -> str:
    item = catalog.get(item_id)
    return f"{item.title!r} ({item_id})" if item else item_id


#: A constraint as a disclosure is compared with it: itself, its casefolded canonical
#: form and operands, and whether it is hidden.
_Stated = tuple[Constraint, str, tuple[str, ...], bool]


class _Plan:
    """What the audit reads of one task over one catalog, built once: for each slot a
    disclosure may name, its field and the constraints on it; the watched ids; and the
    constraints each catalog item breaks (filled as items are met)."""

    __slots__ = ("broken", "constraints", "on_slot", "watched")

    def __init__(self, task: RecommendationTask) -> None:
        self.constraints = tuple(task.constraints)
        self.watched = task.user.watched_ids
        by_field: dict[str, list[_Stated]] = {}
        for c in self.constraints:
            canonical, operands = stated_forms(c)
            by_field.setdefault(c.field, []).append(
                (c, canonical, operands, c.reveal is Reveal.HIDDEN)
            )
        # a slot names SLOT_FIELDS' field, else the field of its own name
        self.on_slot = {
            slot: (field, tuple(by_field[field]))
            for slot, field in [(f, f) for f in by_field] + list(SLOT_FIELDS.items())
            if field in by_field and SLOT_FIELDS.get(slot, slot) == field
        }
        self.broken: dict[str, tuple[Constraint, ...]] = {}


#: Plans per catalog, by task identity (the task kept with its plan).
_PLANS: WeakKeyDictionary[Catalog, dict[int, tuple[RecommendationTask, _Plan]]] = (
    WeakKeyDictionary()
)
_PLANS_PER_CATALOG: Final = 4096


def _plan(task: RecommendationTask, catalog: Catalog) -> _Plan:
    try:
        plans = _PLANS.get(catalog)
    except TypeError:  # no weak reference to it: nothing kept
        return _Plan(task)
    if plans is None:
        plans = _PLANS[catalog] = {}
    hit = plans.get(id(task))
    if hit is not None and hit[0] is task:
        return hit[1]
    if len(plans) >= _PLANS_PER_CATALOG:
        plans.clear()
    plan = _Plan(task)
    plans[id(task)] = (task, plan)
    return plan


def _disclosure_faults(
    field: str, on_field: tuple[_Stated, ...], value: Any, seq: int, out: list[SimulatorFault]
) -> None:
    """A disclosure of `value` on a constrained field: stated wrong, or hidden."""
    text = str(value).casefold()
    stated = [s for s in on_field if s[1] == text]
    if not stated:
        has = text.__contains__
        stated = [s for s in on_field if all(map(has, s[2]))]
    if not stated:
        out.append(
            SimulatorFault(
                "stated_wrong", seq, f"stated {field} {value!r}, which no constraint on it says"
            )
        )
    elif all(s[3] for s in stated):
        out.append(
            SimulatorFault("stated_hidden", seq, f"stated {field} {value!r}, a hidden constraint")
        )


def _verdict_faults(
    intent: str,
    items: list[str],
    seq: int,
    plan: _Plan,
    catalog: Catalog,
    out: list[SimulatorFault],
) -> None:
    """An accept of an item that breaks a constraint, a reject of one that breaks none."""
    known = plan.broken
    for item_id in items:
        broken = known.get(item_id)
        if broken is None:
            item = catalog.get(item_id)
            if item is None:
                continue
            broken = known[item_id] = tuple(c for c in plan.constraints if not c.holds(item))
        if intent == "accept":
            if broken:
                why = "; ".join(f"{c.field} {constraint_value(c)}" for c in broken)
                out.append(
                    SimulatorFault(
                        "accepted_violating",
                        seq,
                        f"accepted {_title(catalog, item_id)}, which breaks {why}",
                    )
                )
        elif not broken and item_id not in plan.watched:
            out.append(
                SimulatorFault(
                    "rejected_satisfying",
                    seq,
                    f"rejected {_title(catalog, item_id)}, which meets every constraint",
                )
            )


def auditor(
    task: RecommendationTask, catalog: Catalog
) -> tuple[Callable[[dict[str, Any]], None], list[SimulatorFault]]:
    """A function to hand the user message records of one episode, in log order, and the
    list it fills with their faults."""
    out: list[SimulatorFault] = []
    plan = _plan(task, catalog)
    on_slot = plan.on_slot

    def hear(message: dict[str, Any]) -> None:
        for act in message.get("acts") or ():  # most cannot contradict the task: skipped fast
            intent = act["intent"]
            if intent == "disclose":
                seq = message["seq"]
                slot, value = act.get("slot"), act.get("value")
                if slot and value:
                    hit = on_slot.get(str(slot).casefold())
                    if hit is not None:  # else a preference the task says nothing about
                        _disclosure_faults(hit[0], hit[1], value, seq, out)
            elif intent == "accept" or intent == "reject":
                seq = message["seq"]
                items = act.get("items")
                if items:
                    _verdict_faults(intent, items, seq, plan, catalog, out)

    return hear, out


def message_faults(
    task: RecommendationTask, message: dict[str, Any], catalog: Catalog
) -> list[SimulatorFault]:
    """The faults of one user message record."""
    hear, faults = auditor(task, catalog)
    hear(message)
    return faults


def audit(
    task: RecommendationTask, events: Iterable[dict[str, Any]], catalog: Catalog
) -> list[SimulatorFault]:
    """Every fault in the user messages of one episode, in log order."""
    hear, faults = auditor(task, catalog)
    for ev in events:
        if ev["type"] == "user_message":
            hear(ev)
    return faults
