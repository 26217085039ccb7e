"""The rule-based user's acts in the IARD vocabulary the log records."""

from __future__ import annotations

from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.server.recommendation.simulator.iard import iard_acts, opening_acts
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.trajectory.dialogue_acts import USER_INTENTS, constraint_value

COMEDY = Constraint(field="genres", op="contains", value="Comedy")


def test_every_rule_act_maps_onto_user_intents():
    for kind in ActKind:
        assert {a.intent for a in iard_acts([Act(kind)])} <= set(USER_INTENTS)


def test_a_stated_constraint_is_a_disclosure_of_its_field_and_value():
    (act,) = iard_acts([Act(ActKind.INFORM, constraints=(COMEDY,))])
    assert (act.intent, act.slot, act.value) == ("disclose", "genres", constraint_value(COMEDY))


def test_a_rejection_names_the_item_and_restates_its_reasons():
    acts = iard_acts([Act(ActKind.REJECT, constraints=(COMEDY,), item_id="x", options=("h",))])
    assert [(a.intent, a.items) for a in acts] == [("reject", ("x",)), ("disclose", ())]


def test_a_hint_alone_discloses_nothing():
    acts = iard_acts([Act(ActKind.REJECT, item_id="x", options=("too long for me",))])
    assert [a.intent for a in acts] == ["reject"]


def test_a_happy_commit_is_an_accept_and_leaving_is_stop():
    acts = iard_acts([Act(ActKind.COMMIT_HAPPY, item_id="x"), Act(ActKind.LEAVE)])
    assert [(a.intent, a.items) for a in acts] == [("accept", ("x",)), ("stop", ())]


def test_the_opening_is_start_then_the_volunteered_constraints():
    assert [a.intent for a in opening_acts([COMEDY])] == ["start", "disclose"]
