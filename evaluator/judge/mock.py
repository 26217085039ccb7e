"""The `mock` judge: `evaluator judge LOGDIR --model mock`.

It tries the whole judge path (prompts, litellm, reading replies, the signed judge file,
the report and the viewer) without a key or a network. Each call still goes through
litellm, which answers with the fixed reply written here (`mock_response`) instead of
asking a provider: the same valid score for every dialogue, so its scores say nothing
about an agent. Wherever they are shown, `judge_name` marks them as the mock's.
"""

from __future__ import annotations

import json
from typing import Any, Final

from taurec.evaluator.judge.rubrics import ASPECTS

#: The model name that selects the mock judge (not a provider's model).
MOCK_JUDGE: Final = "mock"
#: The score every mock reply gives: the middle of the 1-5 rubric.
MOCK_SCORE: Final = 3
#: How a mock judge's scores are named in tables, reports and the viewer.
MOCK_JUDGE_NAME: Final = "mock (fixed offline replies, not a judgement)"


def is_mock_judge(model: str | None) -> bool:
    return model == MOCK_JUDGE


def judge_name(model: str) -> str:
    """The judge as shown beside its scores: the model string, or the mock's mark."""
    return MOCK_JUDGE_NAME if is_mock_judge(model) else model


def mock_reply(aspect: str) -> str:
    """The mock's reply for one aspect: a JSON object the judge's reader accepts."""
    title = ASPECTS[aspect].title if aspect in ASPECTS else aspect
    explanation = f"mock judge: a fixed reply for {title}, not a judgement of this dialogue"
    return json.dumps({"score": MOCK_SCORE, "score_explanation": explanation})


def mock_call(aspect: str) -> dict[str, Any]:
    """litellm keyword arguments that make one judge call answer with the mock's reply,
    offline (litellm never reaches the provider named in `model`)."""
    return {"model": f"openai/{MOCK_JUDGE}", "mock_response": mock_reply(aspect)}
