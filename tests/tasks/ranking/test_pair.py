"""The "ppr" task kind: its model's checks, the answer rule and the one-answer episode."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from taurec.tasks.ranking.pair import PairEpisode, PairTask, pair_prompt, score_answer
from taurec.tasks.suite import parse_task


def _doc(**changes: Any) -> dict[str, Any]:
    doc = {
        "kind": "ppr",
        "id": "p1",
        "user_id": "u",
        "target_time": 5,
        "history": ["Old Film", "Older Film"],
        "direction": "LESS",
        "item_a": {"id": "pos", "title": "The Positive"},
        "item_b": {"id": "neg", "title": "The Negative"},
        "positive": "pos",
        "answer": "B",
        "source_task_id": "t1",
    }
    return doc | changes


def test_a_sound_task_file_loads_as_a_pair_task():
    task = parse_task(_doc(), source="p1.json")
    assert isinstance(task, PairTask) and task.negative == "neg"


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"answer": "A"}, "answer"),  # LESS with the positive as A: the answer is B
        ({"positive": "other"}, "positive"),
        ({"item_b": {"id": "pos", "title": "x"}}, "item_b"),
    ],
)
def test_an_inconsistent_task_is_refused_naming_the_field(changes: dict[str, Any], field: str):
    with pytest.raises(Exception, match=field):
        parse_task(_doc(**changes), source="p1.json")


def test_a_direction_other_than_more_or_less_is_a_schema_error():
    with pytest.raises(ValidationError):
        PairTask.model_validate(_doc(direction="MOST"))


def test_the_prompt_asks_the_papers_question_without_the_answer():
    prompt = pair_prompt(PairTask.model_validate(_doc()))
    assert "which item the user is LESS LIKELY to buy next" in prompt
    assert "Item A: The Positive\nItem B: The Negative" in prompt
    assert "1. Old Film\n2. Older Film" in prompt and "pos" not in prompt.split("Item A")[0]


@pytest.mark.parametrize(
    "answer, valid, reward", [("B", True, 1.0), (" b ", True, 1.0), ("A", True, 0.0)]
)
def test_the_tasks_letter_scores_1_and_the_other_0(answer: str, valid: bool, reward: float):
    outcome = score_answer(PairTask.model_validate(_doc()), answer)
    assert (outcome.valid, outcome.reward) == (valid, reward)


@pytest.mark.parametrize("answer", ["C", "", "A or B", None, 1, ["A"]])
def test_an_answer_other_than_a_or_b_is_invalid_and_scores_0(answer: Any):
    outcome = score_answer(PairTask.model_validate(_doc()), answer)
    assert not outcome.valid and outcome.reward == 0.0 and outcome.problem


def test_the_episode_ends_on_the_first_answer_and_never_names_the_letter():
    episode = PairEpisode(PairTask.model_validate(_doc()))
    text, outcome = episode.submit("x")
    assert episode.ended and outcome.reward == 0.0
    assert text == "Invalid answer (answer: 'x' is not 'A' or 'B'). The episode is over (reward 0)."
    with pytest.raises(ValueError, match="has ended"):
        episode.submit("B")
