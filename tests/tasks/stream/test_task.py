"""The stream task schema: settings, budgets, and utilities for every item shown."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from support.streams import make_stream

from taurec.tasks.stream.task import FeedbackKind, StreamSetting, StreamTask


def dump(task: StreamTask) -> dict[str, Any]:
    return task.model_dump(mode="json")


def test_question_budgets_default_to_10_with_one_customer_and_20_otherwise() -> None:
    assert make_stream(StreamSetting.VARIABLE_CATEGORY).budget == 10
    assert make_stream(StreamSetting.VARIABLE_PERSONA).budget == 20
    assert make_stream(StreamSetting.VARIABLE_SETTINGS).budget == 20


def test_a_given_question_budget_wins() -> None:
    data = dump(make_stream()) | {"question_budget": 3}
    assert StreamTask.model_validate(data).budget == 3


def test_a_task_round_trips_through_json_with_the_same_hash() -> None:
    task = make_stream()
    again = StreamTask.model_validate_json(task.model_dump_json())
    assert again.sha256() == task.sha256()


def test_the_hash_covers_the_utilities() -> None:
    task = make_stream()
    data = dump(task)
    data["utility_source"] = "llm"
    data["episodes"][0]["utilities"][data["episodes"][0]["item_ids"][0]] = 1.0
    assert StreamTask.model_validate(data).sha256() != task.sha256()


def test_a_persona_without_utilities_for_its_choice_set_is_a_clear_error() -> None:
    data = dump(make_stream())
    episode = data["episodes"][1]
    del episode["utilities"][episode["item_ids"][4]]
    with pytest.raises(ValidationError, match=r"persona 'p\d+' has no utility for item"):
        StreamTask.model_validate(data)


def test_a_persona_without_a_preference_model_needs_llm_utilities() -> None:
    data = dump(make_stream())
    data["personas"][0]["preferences"] = None
    with pytest.raises(ValidationError, match="has no preferences; expected a preference model"):
        StreamTask.model_validate(data)
    data["utility_source"] = "llm"
    assert StreamTask.model_validate(data).personas[0].preferences is None


def test_stored_utilities_must_match_the_preference_model() -> None:
    data = dump(make_stream())
    first = data["episodes"][0]["item_ids"][0]
    data["episodes"][0]["utilities"][first] = 99.5
    with pytest.raises(ValidationError, match="its persona's preference model gives"):
        StreamTask.model_validate(data)


def test_a_choice_set_of_fewer_than_15_items_is_a_clear_error() -> None:
    data = dump(make_stream())
    data["episodes"][0]["item_ids"] = data["episodes"][0]["item_ids"][:14]
    with pytest.raises(
        ValidationError, match="gives a choice set of 14 items; expected at least 15"
    ):
        StreamTask.model_validate(data)


def test_an_episode_showing_an_unknown_item_is_refused() -> None:
    data = dump(make_stream())
    data["episodes"][0]["item_ids"][0] = "nope"
    data["episodes"][0]["utilities"]["nope"] = 50.0
    data["utility_source"] = "llm"
    with pytest.raises(ValidationError, match="shows item 'nope', not in items"):
        StreamTask.model_validate(data)


def test_a_same_customer_stream_with_two_customers_is_refused() -> None:
    other = make_stream(StreamSetting.VARIABLE_PERSONA)
    data = dump(other) | {"setting": "variable_category"}
    with pytest.raises(ValidationError, match="variable_category stream with one persona"):
        StreamTask.model_validate(data)


def test_feedback_kinds_are_the_four_of_biel() -> None:
    assert {f.value for f in FeedbackKind} == {"regret", "stars", "persona", "none"}
