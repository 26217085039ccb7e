"""The leak guard: every way of saying a hidden constraint is caught, nothing else is."""

from __future__ import annotations

from functools import cache

import pytest

from taurec.server.recommendation.simulator.hints import BANK
from taurec.server.recommendation.simulator.leak_guard import LeakGuard
from taurec.server.recommendation.simulator.phrasing import describe
from taurec.tasks.recommendation.constraint import Constraint, Reveal
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import Suite, load_suite


@cache
def builtin() -> Suite:
    return load_suite("builtin")


def _guard(*constraints: Constraint) -> LeakGuard:
    return LeakGuard(
        RecommendationTask(id="t", persona="You are Ann.", constraints=list(constraints))
    )


def _hidden(field: str, op: str, value: object) -> Constraint:
    return Constraint(field=field, op=op, value=value, reveal="hidden")


def test_stating_any_hidden_constraint_of_the_builtin_suite_is_caught():
    for task in builtin().tasks:
        guard = LeakGuard(task)
        for c in task.constraints_by(Reveal.HIDDEN):
            assert guard.find(f"Well, {describe(c)}."), (task.id, str(c))


def test_no_hint_in_the_bank_trips_the_guard_of_a_builtin_task():
    hints = [h for variants in BANK.values() for h in variants]
    for task in builtin().tasks:
        guard = LeakGuard(task)
        assert [h for h in hints if not guard.clean(h)] == [], task.id


@pytest.mark.parametrize(
    ("constraint", "said"),
    [
        (_hidden("runtime", "<=", 95), "ninety-five minutes tops"),
        (_hidden("runtime", "<=", 90), "I've only got an hour and a half"),
        (_hidden("runtime", "<=", 120), "under 2 hours"),
        (_hidden("rating", ">=", 6.5), "at least six and a half"),
        (_hidden("vote_count", ">=", 1000), "more than 1k people"),
        (_hidden("release_date", ">=", 1995), "nothing before nineteen ninety-five"),
        (_hidden("release_date", ">=", 1995), "something from the 90s on"),
        (_hidden("content_rating", "!=", "R"), "nothing R-rated"),
        (_hidden("genres", "not_contains", "Animation"), "no cartoons please"),
        (_hidden("original_language", "==", "zh"), "something in Mandarin"),
        (_hidden("streaming_services", "contains", "Amazon Prime Video"), "it's on prime video"),
        (_hidden("cast", "contains", "Tom Hanks"), "anything with Hanks"),
        (_hidden("director", "!=", "Otto Marovic"), "not Marovic again"),
    ],
)
def test_a_hidden_value_is_caught_however_it_is_said(constraint: Constraint, said: str):
    assert _guard(constraint).find(said)


def test_the_field_name_of_a_hidden_constraint_is_caught():
    guard = _guard(_hidden("runtime", "<=", 95))
    assert [leak.said for leak in guard.find("Not too many minutes, okay?")] == ["minutes"]


def test_the_field_name_is_allowed_when_a_stated_constraint_shares_the_field():
    stated = Constraint(field="runtime", op=">=", value=60, reveal="on_ask")
    assert _guard(stated, _hidden("runtime", "<=", 95)).clean("At least 60 minutes.")


def test_a_value_a_stated_constraint_shares_is_allowed():
    stated = Constraint(field="runtime", op="<=", value=100, reveal="volunteer")
    assert _guard(stated, _hidden("runtime", ">=", 100)).clean("Nothing longer than 100 minutes.")


def test_everyday_words_that_resemble_values_are_not_caught():
    guard = _guard(
        _hidden("runtime", "<=", 95),
        _hidden("streaming_services", "contains", "HBO Max"),
        _hidden("rating", ">=", 1),
    )
    assert guard.clean("One more thing: that's the max I'd want, a prime example, 1995 vibes.")


def test_words_inside_ignored_titles_are_not_caught():
    guard = _guard(_hidden("genres", "not_contains", "Comedy"))
    assert guard.find("The Comedy Club sounds fun")
    assert not guard.find("The Comedy Club sounds fun", ignore=("The Comedy Club",))


def test_keep_clean_drops_only_the_sentences_that_leak():
    guard = _guard(_hidden("runtime", "<=", 90))
    kept = guard.keep_clean(["You are Ann.", "You have ninety minutes.", "You like puns."])
    assert kept == ["You are Ann.", "You like puns."]
