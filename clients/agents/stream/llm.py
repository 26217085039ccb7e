"""The LLM contestant on streams, as BIEL prompts it: each step the model sees the
episode (category, the items with their attributes, questions left), this episode's
questions and answers, and its own record of earlier episodes (questions, answers, the
item it recommended and the feedback: BIEL's `raw` history), and replies with
`QUESTION: ...` or `RECOMMEND: <item id>`.

A reply that is neither, or names an id outside the choice set, counts as a question
(BIEL's rule) while questions are left; with none left the model is told it must
recommend, and a reply that still names no item of the set gives the first item. What it
carries across episodes is only that record: in-context learning, nothing else.
Transient provider errors are retried; when they persist it raises AgentInfraError.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

import anyio

from taurec.catalog.llm_runtime import load_litellm, refusal_errors, transient_errors
from taurec.clients.agents.base import AgentInfraError, Episode, ProviderRefused
from taurec.clients.agents.stream.play import Action, Dialogue

_QUESTION = re.compile(r"QUESTION:\s*(.+)", re.S)
_RECOMMEND = re.compile(r"RECOMMEND:\s*([A-Za-z0-9_.:-]+)")
MAX_HISTORY_EPISODES: Final = 20
HEADERS: Final = {
    "variable_category": "The same customer, shopping in a new category each episode.",
    "variable_persona": "The same category and items, a new customer each episode.",
    "variable_settings": "A new customer and a new category each episode.",
}
SYSTEM: Final = (
    "You are a shopping assistant. Each episode a customer shops among the items listed. "
    "Ask them short questions to learn what they want, then recommend exactly one item. "
    "Reply with exactly one line: 'QUESTION: <your question>' or 'RECOMMEND: <item id>'."
)
Completion = Callable[..., Any]


def _item_line(item: dict[str, Any]) -> str:
    parts = [f"{item['id']}: {item['title']}"]
    for key in (
        "categories",
        "year",
        "runtime",
        "rating",
        "language",
        "maker",
        "keywords",
        "price",
    ):
        value = item.get(key)
        if value not in (None, [], ""):
            parts.append(f"{key}={', '.join(value) if isinstance(value, list) else value}")
    if item.get("description"):
        parts.append(str(item["description"])[:200])
    return " | ".join(parts)


class LLMStreamPolicy:
    def __init__(
        self,
        model: str,
        episode: Episode | None = None,
        *,
        label: str | None = None,
        temperature: float | None = 0.0,
        completion: Completion | None = None,
        max_retries: int = 4,
    ) -> None:
        self.label = label or model
        self.model = model
        self.temperature = temperature
        self._episode = episode
        self._completion = completion
        self._max_retries = max_retries
        self._history: list[str] = []
        self._dialogue: Dialogue = []

    def prompt(self, view: dict[str, Any], dialogue: Dialogue) -> list[dict[str, str]]:
        lines = [HEADERS.get(str(view.get("setting")), "")]
        if self._history:
            lines += ["Earlier episodes:", *self._history[-MAX_HISTORY_EPISODES:]]
        lines += [
            f"Episode {view['episode']} of {view['episodes']} ({view['customer']}), "
            f"shopping for: {view['category']}.",
            "Items:",
            *(_item_line(i) for i in view["items"]),
        ]
        lines += [f"Q: {q}\nA: {a}" for q, a in dialogue]
        left = int(view.get("questions_left", 0))
        lines.append(
            f"Questions left: {left}."
            if left
            else "No questions left: you must reply RECOMMEND: <item id> now."
        )
        return [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "\n".join(lines)},
        ]

    async def _complete(self, messages: list[dict[str, str]]) -> str:
        litellm = None
        completion = self._completion
        if completion is None:
            litellm = load_litellm()
            completion = litellm.acompletion
        retryable = transient_errors(litellm or load_litellm())
        refused = refusal_errors(litellm or load_litellm())
        for attempt in range(self._max_retries + 1):
            try:
                kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
                if self.temperature is not None:
                    kwargs["temperature"] = self.temperature
                reply = await completion(**kwargs)
                break
            except refused as exc:
                raise ProviderRefused(f"{self.model}: {type(exc).__name__}: {exc}") from exc
            except retryable as exc:
                if attempt == self._max_retries:
                    raise AgentInfraError(f"{self.model}: {type(exc).__name__}: {exc}") from exc
                await anyio.sleep(min(30.0, 2.0**attempt))
            except Exception as exc:
                raise AgentInfraError(f"{self.model}: {type(exc).__name__}: {exc}") from exc
        usage = getattr(reply, "usage", None)
        if self._episode is not None and usage is not None:
            self._episode.add_usage(usage.prompt_tokens or 0, usage.completion_tokens or 0)
        return str(reply.choices[0].message.content or "")

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        self._dialogue = list(dialogue)
        text = await self._complete(self.prompt(view, dialogue))
        ids = [str(i["id"]) for i in view["items"]]
        if (m := _RECOMMEND.search(text)) and m.group(1) in ids:
            return "recommend", m.group(1)
        if int(view.get("questions_left", 0)) <= 0:
            named = next((i for i in ids if i in text), ids[0])
            return "recommend", named
        question = m.group(1).strip() if (m := _QUESTION.search(text)) else text.strip()
        return "ask", question.splitlines()[0][:500] if question else "What are you looking for?"

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        title = next((str(i["title"]) for i in view["items"] if str(i["id"]) == item_id), item_id)
        qa = " ".join(f"Q: {q} A: {a}" for q, a in self._dialogue)
        self._history.append(
            f"Episode {view['episode']} ({view['customer']}, {view['category']}): {qa} "
            f"Recommended {item_id} ({title}). Feedback: {feedback or 'none'}"
        )
