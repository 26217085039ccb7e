"""The `mock` model of the LLM agent: `taurec run --agent llm --model mock`.

It tries the whole LLM path (litellm, tool calls, usage, logs, scoring) without a key or
a network. Each call still goes through litellm, which answers with the reply written
here (`mock_tool_calls`, `mock_response`) instead of asking a provider. The play is
deterministic and short, and fits the kind the offered tools show:

- a dialogue: search the catalog for the user's opening words, then recommend the first
  hit (or abstain when there is none);
- a ranking: the user's profile, then the candidates in the order shown (the scripted
  ranking policy, clients/envs/scripted.py);
- a prompt with no tools (a PPR pair): the first of the two, `\\boxed{A}`.

Streams have their own mock (clients/agents/stream/mock.py). It is a smoke test of the
harness, not a baseline.
"""

from __future__ import annotations

import json
from typing import Any, Final

from taurec.clients.envs.scripted import kind_of_tools, scripted_reply

#: The model name that selects the mock (not a provider's model).
MOCK_MODEL: Final = "mock"
#: The mock's answer to a prompt that offers no tools (a PPR pair asks for A or B).
PAIR_ANSWER: Final = "The first one. \\boxed{A}"


def is_mock(model: str | None) -> bool:
    return model == MOCK_MODEL


def mock_reply(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """litellm keyword arguments that make the next call answer with the mock's move for
    the kind `tools` show (see the module doc; None: a dialogue's)."""
    if tools is not None and not tools:  # a call that offers no tools at all
        return {"mock_response": PAIR_ANSWER}
    if kind_of_tools(tools) == "ranking":
        reply = scripted_reply("ranking", messages)
        calls = reply.get("tool_calls")
        return (
            {"mock_tool_calls": calls, "mock_response": ""}
            if calls
            else {"mock_response": reply["content"]}
        )
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
