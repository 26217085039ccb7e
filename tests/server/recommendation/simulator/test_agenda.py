"""agenda: what the user may say, must not say, and has said."""

from __future__ import annotations

from taurec.server.recommendation.simulator.agenda import Agenda
from taurec.server.recommendation.simulator.nlu import Attribute
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.recommendation.task import RecommendationTask

COMEDY = Constraint(field="genres", op="contains", value="Comedy", reveal="volunteer")
SHORT_HIDDEN = Constraint(field="runtime", op="<=", value=90, reveal="hidden")


def _task(*constraints: Constraint, soft: list[str]) -> RecommendationTask:
    return RecommendationTask(
        id="t", persona="You are Ann.", constraints=list(constraints), soft_preferences=soft
    )


def test_volunteer_constraints_count_as_told_from_the_start():
    agenda = Agenda(_task(COMEDY, SHORT_HIDDEN, soft=[]))
    assert agenda.is_told(COMEDY) and not agenda.is_told(SHORT_HIDDEN)


def test_soft_preference_voicing_a_hidden_value_is_dropped():
    soft = ["Ideally under ninety minutes.", "Nothing over 90 minutes.", "Witty banter."]
    agenda = Agenda(_task(COMEDY, SHORT_HIDDEN, soft=soft))
    assert [text for _, text in agenda.soft_for(None)] == ["Witty banter."]


def test_soft_preference_sharing_a_stated_value_is_kept():
    stated = Constraint(field="runtime", op=">=", value=90, reveal="on_ask")
    agenda = Agenda(_task(COMEDY, SHORT_HIDDEN, stated, soft=["At least 90 minutes."]))
    assert len(agenda.soft_for(None)) == 1


def test_soft_preferences_are_filed_under_the_attribute_they_mention():
    agenda = Agenda(_task(COMEDY, soft=["Nothing too long.", "A happy ending."]))
    assert [t for _, t in agenda.soft_for(Attribute.LENGTH)] == ["Nothing too long."]
    assert [t for _, t in agenda.soft_for(Attribute.GENRE)] == ["A happy ending."]


def test_tell_reports_whether_anything_was_new():
    agenda = Agenda(_task(COMEDY, soft=[]))
    assert agenda.tell("x") and not agenda.tell("x")
