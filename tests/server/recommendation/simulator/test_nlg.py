"""nlg: every act has varied wording, in the persona's voice, without new facts."""

from __future__ import annotations

import random

import pytest

from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.server.recommendation.simulator.nlg import _NO_PREFERENCE, _T, Speaker, first_name
from taurec.server.recommendation.simulator.nlu import Attribute
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.recommendation.task import RecommendationTask

COMEDY = Constraint(field="genres", op="contains", value="Comedy")


def _task(persona: str = "You are Priya, a 34-year-old nurse.") -> RecommendationTask:
    return RecommendationTask(id="t", persona=persona, constraints=[COMEDY])


def test_every_template_has_at_least_three_variants():
    assert all(len(v) >= 3 for v in (*_T.values(), *_NO_PREFERENCE.values()))


def test_every_attribute_has_a_no_preference_wording():
    assert set(_NO_PREFERENCE) == set(Attribute) - {Attribute.HISTORY, Attribute.OTHER}


@pytest.mark.parametrize("kind", list(ActKind))
def test_every_act_is_worded(kind):
    act = Act(
        kind,
        attribute=Attribute.LENGTH,
        constraints=(COMEDY,),
        options=("that one just doesn't grab me",),
    )
    assert Speaker(_task(), random.Random(0)).say([act]).strip()


def test_the_same_act_twice_in_a_row_is_worded_differently():
    speaker = Speaker(_task(), random.Random(0))
    first, second = (speaker.say([Act(ActKind.EMPTY)]) for _ in range(2))
    assert first != second


@pytest.mark.parametrize(
    ("persona", "name"),
    [
        ("You are Priya, a 34-year-old nurse.", "Priya"),
        ("You are Professor Adebayo, a 54-year-old.", "Professor Adebayo"),
        ("You are a 34-year-old nurse.", None),
        ("You are Miriam, 41, on the family profile.", "Miriam"),
    ],
)
def test_first_name_comes_from_the_persona(persona, name):
    assert first_name(persona) == name


def test_a_lowercase_typist_writes_in_lowercase():
    task = _task("You are Leo, 14. You type in lowercase.")
    text = Speaker(task, random.Random(0)).opening([COMEDY])
    assert text == text.lower() and "comedy" in text


def test_a_statement_starting_with_i_keeps_its_capital_mid_sentence():
    speaker = Speaker(_task(), random.Random(0))
    texts = {speaker.say([Act(ActKind.INFORM, constraints=(COMEDY,))]) for _ in range(8)}
    assert all("i want" not in t for t in texts)
