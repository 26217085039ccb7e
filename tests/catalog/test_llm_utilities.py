"""LLM-scored utilities as BIEL scores them (litellm mocked: no network)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.llm_utilities import (
    LLMUtilityScorer,
    LLMUtilitySettings,
    UtilityScoringError,
    degenerate,
    rescaled,
)

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm

ITEMS = [ChoiceItem(id=f"p{k:02d}", title=f"Product {k}", price=float(k)) for k in range(45)]
Scores = Callable[[str, int, list[str]], list[float]]


def fake_completion(scores: Scores, calls: list[dict[str, Any]]) -> Callable[..., Any]:
    """A completion whose reply scores each product by `scores(model, attempt, ids)`,
    returned through litellm's own mock so the reply has litellm's shape."""

    def complete(**kwargs: Any) -> Any:
        payload = orjson.loads(kwargs["messages"][0]["content"])
        ids = [p["id"] for p in payload["products"]]
        attempt = len(kwargs["messages"]) - 1
        calls.append({"model": kwargs["model"], "n": len(ids), "attempt": attempt, **kwargs})
        values = scores(kwargs["model"], attempt, ids)
        body = {"results": [{"id": i, "score": s} for i, s in zip(ids, values, strict=True)]}
        return litellm.completion(
            model=kwargs["model"],
            messages=kwargs["messages"],
            mock_response=orjson.dumps(body).decode(),
        )

    return complete


def spread(model: str, attempt: int, ids: list[str]) -> list[float]:
    base = 40 if "a-model" in model else 60
    return [base + int(i[1:]) % 40 for i in ids]


def scorer(scores: Scores, calls: list[dict[str, Any]], **settings: Any) -> LLMUtilityScorer:
    config = LLMUtilitySettings(models=("openai/a-model", "openai/b-model"), **settings)
    return LLMUtilityScorer(config, completion=fake_completion(scores, calls))


def test_scores_are_averaged_over_two_models() -> None:
    calls: list[dict[str, Any]] = []
    out = scorer(spread, calls).score("A hiker", "Tents", ITEMS)
    assert out is not None
    assert out["p05"] == (45 + 65) / 2


def test_items_are_sent_in_chunks_of_20_at_temperature_point_one() -> None:
    calls: list[dict[str, Any]] = []
    scorer(spread, calls).score("A hiker", "Tents", ITEMS)
    assert [c["n"] for c in calls if c["model"] == "openai/a-model"] == [20, 20, 5]
    assert {c["temperature"] for c in calls} == {0.1}


def test_scores_on_a_0_to_1_or_0_to_10_scale_are_rescaled() -> None:
    assert rescaled([0.5, 1.0]) == [50.0, 100.0]
    assert rescaled([5, 10]) == [50.0, 100.0]
    assert rescaled([50, 120]) == [50.0, 100.0]


def test_degenerate_outputs_are_recognised() -> None:
    assert degenerate([0.0] * 4 + [80.0] * 20)
    assert degenerate([5.0, 6.0, 7.0, 8.0])
    assert not degenerate([10.0, 50.0, 90.0, 70.0])


def test_a_degenerate_answer_is_rescored_once() -> None:
    calls: list[dict[str, Any]] = []

    def collapsed_first(model: str, attempt: int, ids: list[str]) -> list[float]:
        return (
            [0.0] * len(ids)
            if attempt == 0 and model == "openai/a-model"
            else spread(model, attempt, ids)
        )

    out = scorer(collapsed_first, calls).score("A hiker", "Tents", ITEMS)
    assert out is not None and out["p05"] == (45 + 65) / 2
    assert [c["attempt"] for c in calls if c["model"] == "openai/a-model"] == [0, 0, 0, 1, 1, 1]
    assert {c["attempt"] for c in calls if c["model"] == "openai/b-model"} == {0}


def test_a_category_whose_best_is_below_60_is_skipped() -> None:
    calls: list[dict[str, Any]] = []
    low = scorer(lambda m, a, ids: [20 + int(i[1:]) % 30 for i in ids], calls)
    assert low.score("A hiker", "Tents", ITEMS) is None


def test_one_failing_model_leaves_the_other_models_scores() -> None:
    calls: list[dict[str, Any]] = []

    def b_fails(model: str, attempt: int, ids: list[str]) -> list[float]:
        if model == "openai/b-model":
            raise litellm.BadRequestError("no access", model=model, llm_provider="openai")
        return spread(model, attempt, ids)

    out = scorer(b_fails, calls).score("A hiker", "Tents", ITEMS)
    assert out is not None and out["p05"] == 45


def test_no_model_answering_is_a_clear_error() -> None:
    calls: list[dict[str, Any]] = []

    def missing_ids(model: str, attempt: int, ids: list[str]) -> list[float]:
        raise ValueError("boom")

    with pytest.raises(UtilityScoringError, match="no model scored category 'Tents'"):
        scorer(missing_ids, calls).score("A hiker", "Tents", ITEMS)


def test_replies_are_cached_on_disk(tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []
    first = scorer(spread, calls, cache_dir=tmp_path).score("A hiker", "Tents", ITEMS)
    made = len(calls)
    again = scorer(spread, calls, cache_dir=tmp_path).score("A hiker", "Tents", ITEMS)
    assert again == first
    assert len(calls) == made == 6
