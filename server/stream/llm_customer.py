"""The LLM-simulated customer of a stream (optional): BIEL's answering prompt over litellm,
with a leak guard.

It is told who it is (the persona), that it is shopping for the episode's category for
itself, its tastes in words (from the preference model, or from its utilities as
bands: love / like / fine / dislike per item) and BIEL's rules: be consistent, helpful
and honest, concise (one or two sentences). Its persona feedback (when the stream's
feedback is `persona`) takes the tone of the regret band. The leak guard: no reply may
hold a digit (so no utility, score or rank is ever stated); a leaking reply is
regenerated once, then the rule-based customer's words are used instead. Replies are
deterministic where the provider allows it (temperature 0 by default).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.llm_runtime import load_litellm
from taurec.catalog.preferences import PreferenceModel
from taurec.tasks.stream.customer import CustomerContext, RuleCustomer
from taurec.tasks.stream.feedback import PERFECT, persona_feedback, regret_of, tone

_DIGIT = re.compile(r"\d")
RULES: Final = (
    "Rules: BE CONSISTENT with your tastes and earlier answers. HELPFUL & HONEST: answer "
    "what you are asked truthfully. CONCISE: one or two sentences. Never use numbers or "
    "digits, never give scores or ratings."
)
Completion = Callable[..., Any]


class LLMCustomerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(min_length=1, description="A litellm model string.")
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=100, ge=1)

    def record(self) -> dict[str, Any]:
        return {"customer": "llm", **self.model_dump()}


def _band(gap: float) -> str:
    return "love" if gap <= 5 else "like" if gap <= 15 else "fine" if gap <= 30 else "dislike"


def tastes(ctx: CustomerContext) -> str:
    """The customer's tastes in words, for its prompt (no numbers)."""
    prefs = ctx.persona.preferences
    lines = []
    if prefs is not None:
        likes = [c for c, w in prefs.categories.items() if w > 0]
        dislikes = [c for c, w in prefs.categories.items() if w < 0]
        themes = [k for k, w in prefs.keywords.items() if w > 0]
        lines.append(
            f"You like {', '.join(likes) or 'many things'}; you dislike {', '.join(dislikes) or 'little'}."
        )
        if themes:
            lines.append(f"Themes you enjoy: {', '.join(themes)}.")
    best = max(ctx.utilities.values(), default=0.0)
    for item in ctx.items:
        lines.append(
            f"- {item.title}: you would {_band(best - ctx.utilities.get(item.id, 0.0))} it"
        )
    return "\n".join(lines)


class LLMCustomer:
    """Answers and persona feedback from a language model, guarded against numbers."""

    kind = "llm"

    def __init__(self, settings: LLMCustomerSettings, completion: Completion | None = None) -> None:
        self.settings = settings
        self._completion = completion
        self._fallback = RuleCustomer()
        self.calls = 0
        self.leaks = 0
        self.fallbacks = 0

    def _complete(self, messages: list[dict[str, str]]) -> str:
        completion = self._completion or load_litellm().completion
        self.calls += 1
        reply = completion(
            model=self.settings.model,
            messages=messages,
            temperature=self.settings.temperature,
            max_tokens=self.settings.max_tokens,
        )
        return str(reply.choices[0].message.content or "").strip()

    def _guarded(self, messages: list[dict[str, str]], fallback: Callable[[], str]) -> str:
        for attempt in range(2):
            text = self._complete(messages)
            if text and not _DIGIT.search(text):
                return text
            self.leaks += 1
            if attempt == 0:
                messages = [
                    *messages,
                    {"role": "user", "content": "Say that again without any numbers or digits."},
                ]
        self.fallbacks += 1
        return fallback()

    def _system(self, ctx: CustomerContext) -> str:
        return (
            f"You are this person: {ctx.persona.description}\nYou are shopping for "
            f"{ctx.category} for yourself.\n{tastes(ctx)}\n{RULES}"
        )

    def answer(self, ctx: CustomerContext, question: str) -> str:
        messages = [
            {"role": "system", "content": self._system(ctx)},
            {"role": "user", "content": question},
        ]
        return self._guarded(messages, lambda: self._fallback.answer(ctx, question))

    def react(
        self,
        ctx: CustomerContext,
        chosen: float,
        best: float,
        item: ChoiceItem,
        prefs: PreferenceModel | None,
        seed: int,
    ) -> str:
        """Persona feedback: BIEL's fixed reply at regret 0, else words in the band's tone."""
        regret = regret_of(chosen, best)
        if regret == 0:
            return PERFECT
        mood = tone(regret)
        messages = [
            {"role": "system", "content": self._system(ctx)},
            {
                "role": "user",
                "content": f"The assistant recommended {item.title}. React in a "
                f"{mood} tone, in one or two sentences, saying why, without revealing any score.",
            },
        ]
        return self._guarded(messages, lambda: persona_feedback(chosen, best, item, prefs, seed))

    def stats(self) -> dict[str, int]:
        return {"calls": self.calls, "leaks_caught": self.leaks, "rule_fallbacks": self.fallbacks}
