"""The `mock` model of the LLM agent: `taurec run --agent llm --model mock`.

It tries the whole LLM path (litellm, tool calls, usage, logs, scoring) without a key or
a network. Each call still goes through litellm, which answers with the reply written
here (`mock_tool_calls`) instead of asking a provider. The play is deterministic and
short: search the catalog for the user's opening words, then recommend the first hit (or
abstain when there is none). It is a smoke test of the harness, not a baseline.
"""

from __future__ import annotations

import json
from typing import Any, Final

#: The model name that selects the mock (not a provider's model).
MOCK_MODEL: Final = "mock"


def is_mock(model: str | None) -> bool:
    return model == MOCK_MODEL


def mock_reply(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """litellm keyword arguments that make the next call answer with the mock's move."""
    results = [m for m in messages if m.get("role") == "tool"]
    if not results:
        opening = next((m["content"] for m in messages if m.get("role") == "user"), "")
        query = " ".join(str(opening).split()[:12]) or "film"
        return _call("search_catalog", {"query": query, "limit": 5}, len(messages))
    return _call("recommend", {"item_id": _first_item(results[-1])}, len(messages))


def _call(name: str, arguments: dict[str, Any], step: int) -> dict[str, Any]:
    call = {
        "id": f"mock-{step}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return {"mock_tool_calls": [call], "mock_response": ""}


def _first_item(message: dict[str, Any]) -> str | None:
    try:
        data = json.loads(str(message.get("content", "")))
    except ValueError:
        return None
    items = (data.get("hits") or data.get("items")) if isinstance(data, dict) else None
    if isinstance(items, list) and items and isinstance(items[0], dict):
        item_id = items[0].get("id")
        return str(item_id) if item_id is not None else None
    return None
