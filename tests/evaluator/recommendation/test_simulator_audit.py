"""The simulator-fault audit over hand-made user acts: one behaviour per fault kind."""

from __future__ import annotations

from datetime import date
from typing import Any

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.evaluator.recommendation.simulator_audit import audit
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.dialogue_acts import constraint_value


def _item(item_id: str, **fields: Any) -> Item:
    base: dict[str, Any] = {
        "title": item_id.title(),
        "release_date": date(2015, 5, 1),
        "runtime": 85,
        "genres": ["Comedy"],
        "rating": 7.5,
        "vote_count": 5000,
        "content_rating": "PG",
    }
    return Item(id=item_id, **(base | fields))


CATALOG = Catalog.from_items(
    [_item("fits"), _item("long", runtime=130), _item("drama", genres=["Drama"]), _item("seen")]
)
COMEDY = Constraint(field="genres", op="contains", value="Comedy", reveal="volunteer")
SHORT = Constraint(field="runtime", op="<=", value=90, reveal="hidden")
TASK = RecommendationTask(
    id="t",
    persona="Ann.",
    constraints=[COMEDY, SHORT],
    user={"watch_history": [{"item_id": "seen"}]},
)


def _user(seq: int, *acts: dict[str, Any]) -> dict[str, Any]:
    return {"type": "user_message", "seq": seq, "text": "", "acts": list(acts)}


def _act(intent: str, slot: str | None = None, value: str | None = None, items=()) -> dict:
    return {"intent": intent, "slot": slot, "value": value, "items": list(items)}


def test_accepting_a_title_that_breaks_a_constraint_is_a_fault_at_its_seq():
    (fault,) = audit(TASK, [_user(4, _act("accept", items=["long"]))], CATALOG)
    assert (fault.kind, fault.seq) == ("accepted_violating", 4)
    assert "runtime <= 90" in fault.detail


def test_accepting_a_fitting_title_is_no_fault():
    assert audit(TASK, [_user(2, _act("accept", items=["fits"]))], CATALOG) == []


def test_rejecting_an_unwatched_title_that_meets_every_constraint_is_a_fault():
    (fault,) = audit(TASK, [_user(2, _act("reject", items=["fits"]))], CATALOG)
    assert fault.kind == "rejected_satisfying"


def test_rejecting_a_watched_title_is_no_fault():
    assert audit(TASK, [_user(2, _act("reject", items=["seen"]))], CATALOG) == []


def test_disclosing_a_hidden_constraint_is_a_fault():
    acts = [_act("disclose", "runtime", constraint_value(SHORT))]
    (fault,) = audit(TASK, [_user(3, *acts)], CATALOG)
    assert fault.kind == "stated_hidden"


def test_an_llm_style_value_naming_the_hidden_operand_is_caught_too():
    (fault,) = audit(TASK, [_user(3, _act("disclose", "length", "at most 90 minutes"))], CATALOG)
    assert fault.kind == "stated_hidden"


def test_disclosing_a_value_no_constraint_has_is_a_wrong_statement():
    (fault,) = audit(TASK, [_user(3, _act("disclose", "genres", "Horror"))], CATALOG)
    assert fault.kind == "stated_wrong"


def test_disclosing_a_volunteer_constraint_is_no_fault():
    acts = [_act("disclose", "genres", constraint_value(COMEDY))]
    assert audit(TASK, [_user(1, *acts)], CATALOG) == []


def test_a_preference_on_a_field_without_constraints_is_no_fault():
    assert audit(TASK, [_user(1, _act("disclose", "director", "Agnes Varda"))], CATALOG) == []


def test_agent_messages_are_not_audited():
    ev = {"type": "agent_message", "seq": 2, "text": "", "acts": [_act("accept", items=["long"])]}
    assert audit(TASK, [ev], CATALOG) == []
