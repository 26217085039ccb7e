"""What one judge call sent and got back, as the judge file keeps it beside the answer
(`model_call`): the model, the settings sent, the messages, the completion, how long it
took and whether a cache answered, the same fields an episode log's `model_call` event
has (docs/trajectory.md). The judge file is signed as a whole, so these are too."""

from __future__ import annotations

import time
from typing import Any

from taurec.tasks.trajectory.model_calls import call_settings, response_fields


def judge_model_call(
    model: str, kwargs: dict[str, Any], prompt: str, response: Any, started: float
) -> dict[str, Any]:
    """The record of one judge call to `model` with the litellm `kwargs` given, the user
    message `prompt`, answered by `response`; `started`: time.perf_counter() before it."""
    fields = response_fields(response)
    fields.pop("usage", None)  # the answer holds the tokens already
    fields.setdefault("latency_ms", round((time.perf_counter() - started) * 1000, 3))
    return {
        "model": model,
        "settings": call_settings(kwargs),
        "messages": [{"role": "user", "content": prompt}],
        **fields,
    }
