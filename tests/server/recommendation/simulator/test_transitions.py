"""Transition matrices of the agenda user's sampled case: counts from annotated
dialogues, the compound row before the single-intent one, and seeded sampling."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from taurec.server.recommendation.simulator.transitions import transition_matrices
from taurec.tasks.dialogues.format import AnnotatedDialogue, AnnotatedUtterance


def _dialogue(*turns: tuple[str, list[str]]) -> AnnotatedDialogue:
    return AnnotatedDialogue(
        utterances=tuple(AnnotatedUtterance(participant=p, intents=i) for p, i in turns)  # type: ignore[arg-type]
    )


DIALOGUES = [
    _dialogue(
        ("user", ["start"]),
        ("agent", ["elicit"]),
        ("user", ["disclose"]),
        ("agent", ["elicit"]),
        ("user", ["dont_know"]),
        ("agent", ["recommend", "elicit"]),
        ("user", ["reject", "disclose"]),
    ),
    _dialogue(("agent", ["elicit"]), ("user", ["disclose"]), ("agent", ["other"])),
]


def test_single_intent_rows_count_each_agent_intent_of_a_reply() -> None:
    m = transition_matrices(DIALOGUES)
    assert m.transitions == 4
    # elicit: disclose twice, dont_know once, reject+disclose once (the compound turn)
    assert m.single["elicit"] == {"disclose": 0.5, "dont_know": 0.25, "reject+disclose": 0.25}
    assert m.single["recommend"] == {"reject+disclose": 1.0}


def test_the_compound_row_holds_turns_with_several_agent_intents_sorted_and_joined() -> None:
    m = transition_matrices(DIALOGUES)
    assert m.compound == {"elicit_recommend": {"reject+disclose": 1.0}}


def test_an_agent_utterance_without_a_user_reply_counts_nothing() -> None:
    m = transition_matrices(DIALOGUES)
    assert "other" not in m.single


def test_the_compound_row_comes_before_the_single_intent_one() -> None:
    m = transition_matrices(DIALOGUES)
    assert m.row(["recommend", "elicit"]) == {"reject+disclose": 1.0}
    assert m.sample(["elicit", "recommend"], random.Random(0)) == ("reject", "disclose")


def test_without_a_compound_row_the_single_intent_row_applies() -> None:
    m = transition_matrices(DIALOGUES)
    assert m.row(["elicit", "answer"]) == m.single["elicit"]


def test_no_row_samples_nothing() -> None:
    m = transition_matrices(DIALOGUES)
    assert m.sample(["answer"], random.Random(0)) == ()


def test_user_intents_with_an_underscore_survive_sampling() -> None:
    m = transition_matrices([_dialogue(("agent", ["other"]), ("user", ["dont_know"]))])
    assert m.sample(["other"], random.Random(3)) == ("dont_know",)


def test_sampling_is_deterministic_per_seed_and_follows_the_probabilities() -> None:
    m = transition_matrices(DIALOGUES)

    def draws(seed: int) -> list[tuple[str, ...]]:
        rng = random.Random(seed)
        return [m.sample(["elicit"], rng) for _ in range(400)]

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)
    share = draws(7).count(("disclose",)) / 400
    assert 0.4 < share < 0.6  # p = 0.5


def test_an_unknown_intent_is_refused() -> None:
    with pytest.raises(ValidationError, match="unknown intent 'ACC'"):
        AnnotatedUtterance(participant="user", intents=("ACC",))
