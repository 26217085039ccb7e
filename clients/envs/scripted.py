"""A scripted policy for each task kind, over the environments' text observations: what
the tests, the benches and the framework adapters' offline runs play. Each is a baseline
that needs no model, not a strong agent.

- ranking: one tool call (the user profile), then the candidates in the order shown;
- recommendation: asks the user once, searches the catalog with the opening and the
  reply, and recommends the first hit;
- stream: in every episode, recommends the first item shown, then moves on.

`scripted_reply(kind, messages)` plays the same policy as a chat model: over an OpenAI
chat conversation (what `taurec mock-llm` and the LLM agents' `--model mock` are sent),
it replays the environment's observations and answers with the policy's next action as
an assistant message. `kind_of_tools` tells the kind from the tools a request offers.
"""

from __future__ import annotations

import json
import re
from typing import Any


class ScriptedPolicy:
    """`act(observation) -> action` for one episode of `kind` at a time; `reset()`
    between episodes."""

    def __init__(self, kind: str) -> None:
        if kind not in ("ranking", "recommendation", "stream"):
            raise ValueError(f"kind: expected ranking, recommendation or stream, got {kind!r}")
        self.kind = kind
        self.reset()

    def reset(self) -> None:
        self.seen: list[str] = []

    def act(self, observation: str) -> Any:
        self.seen.append(observation)
        return getattr(self, f"_{self.kind}")(observation)

    def _ranking(self, observation: str) -> Any:
        if len(self.seen) == 1:
            return {"name": "get_user_profile", "arguments": {}}
        top = re.search(r"exactly (\d+) unique", self.seen[0])
        n = int(top.group(1)) if top else 10
        return "<answer>\\boxed{[" + ", ".join(str(i) for i in range(1, n + 1)) + "]}</answer>"

    def _recommendation(self, observation: str) -> Any:
        if len(self.seen) == 1:
            return "What are you in the mood for? Anything you would rather avoid?"
        if len(self.seen) == 2:
            query = f"{self.seen[0]} {self.seen[1]}"[:200]
            return {"name": "search_catalog", "arguments": {"query": query, "limit": 5}}
        hits = _json(observation).get("hits") or []
        item = hits[0]["id"] if hits else None
        return {"name": "recommend", "arguments": {"item_id": item}}

    def _stream(self, observation: str) -> Any:
        view = _json(observation.split("\n\n", 1)[-1])
        items = view.get("items")
        if items:
            return {"name": "recommend_item", "arguments": {"item_id": items[0]["id"]}}
        return {"name": "next_episode", "arguments": {}}


#: A tool only one kind offers, and that kind.
KIND_TOOLS = {
    "submit_ranking": "ranking",
    "recommend_item": "stream",
    "send_message": "recommendation",
}


def kind_of_tools(tools: list[dict[str, Any]] | None) -> str | None:
    """The kind whose episode offers `tools` (OpenAI function tools); None when no tool
    tells."""
    for tool in tools or []:
        name = (tool.get("function") or {}).get("name") if isinstance(tool, dict) else None
        if name in KIND_TOOLS:
            return KIND_TOOLS[name]
    return None


def observations(messages: list[dict[str, Any]]) -> list[str]:
    """The environment's observations in a conversation: the first user message, then,
    after each assistant message, the tool results (joined as TaurecEnv joins them) or
    the user message that answered it."""
    seen: list[str] = []
    for message in messages:
        role, content = message.get("role"), message.get("content") or ""
        if role == "system":
            continue
        if role == "assistant":
            seen.append("")
        elif role in ("user", "tool"):
            if not seen:
                seen.append("")
            seen[-1] = f"{seen[-1]}\n\n{content}" if seen[-1] else str(content)
    return seen


def scripted_reply(kind: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant message a ScriptedPolicy of `kind` answers `messages` with: a tool
    call in OpenAI form, or text as content."""
    policy = ScriptedPolicy(kind)
    action: Any = None
    for observation in observations(messages):
        action = policy.act(observation)
    if isinstance(action, str):
        return {"role": "assistant", "content": action}
    call = {
        "id": f"call_{len(messages)}",
        "type": "function",
        "function": {"name": action["name"], "arguments": json.dumps(action["arguments"])},
    }
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
