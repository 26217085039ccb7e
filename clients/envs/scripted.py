"""A scripted policy for each task kind, over the environments' text observations: what
the tests, the benches and the framework adapters' offline runs play. Each is a baseline
that needs no model, not a strong agent.

- ranking: one tool call (the user profile), then the candidates in the order shown;
- recommendation: asks the user once, searches the catalog with the opening and the
  reply, and recommends the first hit;
- stream: in every episode, recommends the first item shown, then moves on.
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


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
