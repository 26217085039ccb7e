"""The agenda user's sampled case (UserSimCRS "other"): with transition matrices, an
agent turn that draws no response and that the user's last act did not expect gets
sampled user intents, filled from the need; a sampled DISCLOSE tells only what has not
been told and never a hidden or on_ask constraint. Without matrices, the agenda applies."""

from __future__ import annotations

from typing import Any

from taurec.evaluator.recommendation.simulator_audit import message_faults
from taurec.server.recommendation.simulator.agenda_user import AgendaUser
from taurec.server.recommendation.simulator.transitions import (
    TransitionMatrices,
    transition_matrices,
)
from taurec.tasks.dialogues.format import AnnotatedDialogue, AnnotatedUtterance
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import load_suite

from .test_agenda_user import CATALOG, TASK

OTHER = "Let me look into that."  # the agent-side NLU reads it as `other`
SHORT = Constraint(field="runtime", op="<=", value=90, reveal="hidden")
SOFT_TASK = RecommendationTask(
    id="soft",
    persona="You are Bo.",
    constraints=[SHORT],
    soft_preferences=["I like a good twist at the end."],
    user={"watch_history": [{"item_id": "loved", "rating": 9}, {"item_id": "hated", "rating": 2}]},
)


def _matrices(*pairs: tuple[str, list[str]]) -> TransitionMatrices:
    utterances = []
    for agent, user in pairs:
        utterances += [
            AnnotatedUtterance(participant="agent", intents=(agent,)),
            AnnotatedUtterance(participant="user", intents=tuple(user)),
        ]
    return transition_matrices([AnnotatedDialogue(utterances=tuple(utterances))])


def _user(task: RecommendationTask = TASK, seed: int = 0, **kw: Any) -> AgendaUser:
    user = AgendaUser(task, CATALOG, seed, **kw)
    user.opening()
    return user


def _intents(user: AgendaUser, text: str = OTHER) -> list[tuple[str, str | None, str | None]]:
    return [(a.intent, a.slot, a.value) for a in user.respond(text).acts]


def test_without_matrices_an_unexpected_agent_turn_falls_back_to_the_agenda() -> None:
    assert _intents(_user()) == [("other", None, None)]


def test_a_sampled_disclose_tells_a_soft_preference_then_a_liked_genre() -> None:
    user = _user(SOFT_TASK, transitions=_matrices(("other", ["disclose"])))
    first = user.respond(OTHER)
    assert [(a.intent, a.slot) for a in first.acts] == [("disclose", "preference")]
    assert "twist" in first.text
    assert _intents(user) == [("disclose", "genres", "drama")]  # the history's loved genre


def test_a_sampled_disclose_never_repeats_a_told_fact() -> None:
    user = _user(SOFT_TASK, transitions=_matrices(("other", ["disclose"])))
    user.respond(OTHER)
    user.respond(OTHER)
    assert _intents(user) == [("other", None, None)]  # nothing left untold: the agenda


def test_a_sampled_disclose_never_states_an_on_ask_or_hidden_constraint() -> None:
    # TASK: genres volunteered (told), release year on_ask, runtime hidden, no soft ones
    user = _user(transitions=_matrices(("other", ["disclose"])))
    for _ in range(3):
        assert _intents(user) == [("other", None, None)]
    assert not user.facts.is_told(TASK.constraints[1])


def test_an_expected_agent_intent_keeps_the_agenda() -> None:
    # after the opening's disclose, an agent question (inquire) is expected
    user = _user(SOFT_TASK, transitions=_matrices(("inquire", ["disclose"])))
    assert _intents(user, "What do you think of that?") == [("other", None, None)]


def test_sampled_intents_that_judge_a_title_or_leave_are_not_taken() -> None:
    user = _user(transitions=_matrices(("other", ["accept", "stop"])))
    reply = user.respond(OTHER)
    assert [a.intent for a in reply.acts] == ["other"]
    assert not reply.left and reply.accepted is None


def test_sampled_plain_intents_are_said() -> None:
    user = _user(transitions=_matrices(("other", ["dont_know", "neutral"])))
    reply = user.respond(OTHER)
    assert [a.intent for a in reply.acts] == ["dont_know", "neutral"]
    assert reply.text == "I'm not sure. No strong feelings either way."


def test_sampling_is_deterministic_per_episode_seed() -> None:
    m = _matrices(("other", ["dont_know"]), ("other", ["yes"]), ("other", ["no"]))

    def replies(seed: int) -> list[list[Any]]:
        user = _user(seed=seed, transitions=m, patience=50)
        return [_intents(user) for _ in range(12)]

    assert replies(4) == replies(4)
    assert replies(4) != replies(5)


def test_over_the_builtin_tasks_sampled_disclosures_audit_at_zero_faults() -> None:
    suite = load_suite("builtin")
    m = _matrices(("other", ["disclose"]), ("answer", ["disclose", "inquire"]))
    disclosed = 0
    for task in suite.tasks:
        user = AgendaUser(task, suite.catalog, 11, transitions=m)
        user.opening()
        for seq in range(3):
            reply = user.respond(OTHER)
            message = {"seq": seq, "acts": [a.record() for a in reply.acts]}
            assert message_faults(task, message, suite.catalog) == [], task.id
            disclosed += sum(a.intent == "disclose" for a in reply.acts)
    assert disclosed >= 10  # the sampled case did fire
