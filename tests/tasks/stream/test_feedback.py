"""Feedback after a stream recommendation: regret text, stars, the persona's words, none."""

from __future__ import annotations

import re

import pytest
from support.streams import make_stream

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.preferences import PreferenceModel
from taurec.tasks.stream.feedback import (
    PERFECT,
    feedback_text,
    persona_feedback,
    regret_feedback,
    stars,
    tone,
)
from taurec.tasks.stream.task import FeedbackKind

ITEM = ChoiceItem(id="m1", title="Se7en 2", categories=["Horror"], year=1995, rating=8.0)
PREFS = PreferenceModel(categories={"Horror": -0.9, "Comedy": 0.8})


@pytest.mark.parametrize(
    ("chosen", "expected"), [(20, 1), (40, 2), (56, 4), (72, 4), (80, 5), (0, 1)]
)
def test_stars_on_biels_cases_with_best_80(chosen: float, expected: int) -> None:
    assert stars(chosen, 80) == expected


def test_stars_round_halves_to_even_as_python_does() -> None:
    assert stars(40, 80) == 2  # 2.5 -> 2
    assert stars(60, 80) == 4  # 3.75 -> 4
    assert stars(70, 100) == 4  # 3.5 -> 4


def test_the_regret_text_has_biels_wording_and_number_format() -> None:
    assert regret_feedback(62.5, 80) == (
        "Recommendation feedback: Chosen score: 62.5, Best possible: 80.0, Regret: 17.5"
    )
    # one decimal, as BIEL's f"{x:.1f}" (so 72.25 shows as 72.2: binary rounding)
    assert regret_feedback(72.25, 100) == (
        "Recommendation feedback: Chosen score: 72.2, Best possible: 100.0, Regret: 27.8"
    )


def test_regret_0_gives_the_fixed_perfect_reply() -> None:
    assert persona_feedback(80, 80, ITEM, PREFS, seed=1) == PERFECT


def test_the_tone_follows_the_regret_band() -> None:
    assert [tone(r) for r in (5, 10, 10.5, 30, 31)] == [
        "positive",
        "positive",
        "moderate",
        "moderate",
        "dissatisfied",
    ]


def test_a_dissatisfied_reply_gives_a_reason_from_the_tastes() -> None:
    text = persona_feedback(20, 90, ITEM, PREFS, seed=1)
    assert "not really into horror" in text


def test_persona_feedback_never_contains_a_digit() -> None:
    task = make_stream(feedback=FeedbackKind.PERSONA, episodes=10)
    for n, ep in enumerate(task.episodes):
        prefs = task.persona_index[ep.persona_id].preferences
        for k, item_id in enumerate(ep.item_ids):
            text = persona_feedback(
                ep.utilities[item_id], ep.best, task.item_index[item_id], prefs, n * 100 + k
            )
            assert not re.search(r"\d", text), text


def test_persona_feedback_is_deterministic_per_seed() -> None:
    assert persona_feedback(50, 80, ITEM, PREFS, 4) == persona_feedback(50, 80, ITEM, PREFS, 4)


def test_no_feedback_is_none() -> None:
    assert feedback_text(FeedbackKind.NONE, 50, 80, ITEM, PREFS, 0) is None


def test_stars_text_has_biels_wording() -> None:
    assert feedback_text(FeedbackKind.STARS, 20, 80, ITEM, PREFS, 0) == (
        "Recommendation rating: 1 out of 5 stars (best possible: 5 stars)"
    )
    assert feedback_text(FeedbackKind.STARS, 80, 80, ITEM, PREFS, 0) == (
        "Recommendation rating: 5 out of 5 stars (best possible: 5 stars)"
    )
