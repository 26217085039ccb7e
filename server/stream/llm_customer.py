"""The LLM-simulated customer of a stream (optional): BIEL's answering and feedback
prompts over litellm, with a leak guard.

Its prompt to answer a question holds who it is (the persona), that it is shopping for
the episode's category for itself, its tastes in words (from the preference model, when
the persona has one), this episode's conversation so far, and BIEL's rules: be
consistent, helpful and honest, concise (one or two sentences). As BIEL's customer, it
knows its persona and the category, not the products: asked about one, it says it does
not know it and answers from its tastes. Under `customer_knows: items` the prompt also
holds the listing of any item of the choice set the question names. It never holds a utility or anything derived from one (no
band, no rank): the customer answers from its tastes, as BIEL's does. Its persona
feedback (when the stream's feedback is `persona`) follows BIEL's feedback prompt: the
fixed "Perfect! ..." at regret 0, otherwise a tone set by the regret band, the
recommended item's title and price, and the conversation. The leak guard: no reply may
hold a digit (so no score or rank is ever stated); a leaking reply is regenerated once,
then the rule-based customer's words are used instead. Replies are deterministic where
the provider allows it (temperature 0 by default).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.llm_runtime import load_litellm
from taurec.catalog.preferences import PreferenceModel
from taurec.server.model_call_log import emit_model_call
from taurec.tasks.stream.customer import (
    CustomerContext,
    RuleCustomer,
    named_items,
    normalised,
)
from taurec.tasks.stream.customer_words import tastes_in_words
from taurec.tasks.stream.feedback import PERFECT, persona_feedback, regret_of, tone
from taurec.tasks.trajectory.model_calls import response_fields

_DIGIT = re.compile(r"\d")
RULES: Final = (
    "Rules:\n"
    "1. BE CONSISTENT: stay true to who you are, your tastes and what you said before.\n"
    "2. BE HELPFUL & HONEST: answer truthfully as this person would; if you have no strong "
    "preference, say so.\n"
    "3. BE CONCISE: one or two sentences; do not volunteer more than you are asked.\n"
    "Never use numbers or digits, and never give scores, ratings or rankings."
)
#: BIEL's tone instruction for each regret band of persona feedback.
TONES: Final = {
    "positive": "Sound pleased: it is close to what you wanted. Mention one small thing "
    "that could be better, from your tastes.",
    "moderate": "Sound moderately satisfied: it is okay but not quite right. Mention what "
    "you were actually looking for, from your tastes.",
    "dissatisfied": "Sound disappointed: it is far from what you wanted. Explain what you "
    "were actually looking for, from your tastes.",
}
Completion = Callable[..., Any]


class LLMCustomerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(min_length=1, description="A litellm model string.")
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=100, ge=1)

    def record(self) -> dict[str, Any]:
        return {"customer": "llm", **self.model_dump()}


def tastes(ctx: CustomerContext) -> str:
    """The customer's tastes in its own words, from its preference model ("" without one:
    then its description is all it has)."""
    prefs = ctx.persona.preferences
    if prefs is None:
        return ""
    return "Your tastes, in your own words:\n" + "\n".join(
        f"- {line}" for line in tastes_in_words(prefs)
    )


def listing(item: ChoiceItem) -> str:
    """An item as the shop lists it: title and attributes (no utility)."""
    facts = [", ".join(item.categories)] if item.categories else []
    facts += [str(item.year)] if item.year is not None else []
    facts += [f"{item.runtime} minutes"] if item.runtime is not None else []
    facts += [f"by {item.maker}"] if item.maker else []
    facts += [f"${item.price:.2f}"] if item.price is not None else []
    facts += [f"about {', '.join(item.keywords)}"] if item.keywords else []
    return f"{item.title} ({'; '.join(facts)})" if facts else item.title


def conversation(ctx: CustomerContext) -> str:
    """This episode's questions and answers so far, as BIEL shows them."""
    if not ctx.dialogue:
        return "No previous conversation."
    return "\n".join(f"Q: {q}\nA: {a}" for q, a in ctx.dialogue)


def answer_prompt(ctx: CustomerContext, question: str) -> list[dict[str, str]]:
    """The messages that ask the customer to answer `question`."""
    named = named_items(ctx.items, normalised(question))
    parts = [
        f"You are role-playing a customer shopping for {ctx.category} for yourself.",
        f"Who you are:\n{ctx.persona.description}",
        tastes(ctx),
        _named(ctx, named),
        f"The conversation so far:\n{conversation(ctx)}",
        RULES,
    ]
    return [
        {"role": "system", "content": "\n\n".join(p for p in parts if p)},
        {"role": "user", "content": question},
    ]


#: The answering prompt's line for a question naming items, when the customer does not
#: know the products (as BIEL's customer).
UNKNOWN_ITEMS: Final = (
    "You do not know the shop's products. If the question asks about a particular "
    "product, say you don't know it and answer from your tastes in general."
)


def _named(ctx: CustomerContext, named: list[ChoiceItem]) -> str:
    if not named:
        return ""
    if not ctx.knows_items:
        return UNKNOWN_ITEMS
    return "Items the question names, as the shop lists them:\n" + "\n".join(
        f"- {listing(i)}" for i in named
    )


def feedback_prompt(ctx: CustomerContext, item: ChoiceItem, mood: str) -> list[dict[str, str]]:
    """The messages that ask the customer to react to `item` in the tone `mood`."""
    price = f"${item.price:.2f}" if item.price is not None else "not listed"
    parts = [
        f"You are role-playing a customer shopping for {ctx.category} for yourself, who "
        "has just been recommended an item.",
        f"Who you are:\n{ctx.persona.description}",
        tastes(ctx),
        f'The assistant recommended: "{item.title}" (price: {price}).\n'
        f"As the shop lists it: {listing(item)}",
        f"The whole conversation:\n{conversation(ctx)}",
        f"Give your feedback on this recommendation. {TONES[mood]} Base it on who you are, "
        "what you said in the conversation and whether the item seems to match. One or two "
        "sentences, natural, as to a salesperson. Never use numbers or digits, and never "
        "mention scores.",
    ]
    return [{"role": "user", "content": "\n\n".join(p for p in parts if p)}]


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
        s = self.settings
        settings = {"temperature": s.temperature, "max_tokens": s.max_tokens}
        reply = completion(model=s.model, messages=messages, **settings)
        emit_model_call("user", s.model, messages, settings=settings, **response_fields(reply))
        return str(reply.choices[0].message.content or "").strip()

    def _guarded(self, messages: list[dict[str, str]], fallback: Callable[[], str]) -> str:
        for attempt in range(2):
            text = self._complete(messages)
            if text and not _DIGIT.search(text):
                return text
            self.leaks += 1
            if attempt == 0:
                again = "Say that again without any numbers or digits."
                messages = [
                    *messages,
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": again},
                ]
        self.fallbacks += 1
        return fallback()

    def answer(self, ctx: CustomerContext, question: str) -> str:
        messages = answer_prompt(ctx, question)
        return self._guarded(messages, lambda: self._fallback.answer(ctx, question))

    def react(
        self,
        ctx: CustomerContext,
        chosen: float,
        best: float,
        item: ChoiceItem,
        prefs: PreferenceModel | None,
        seed: int,
        judged: ChoiceItem | None = None,
    ) -> str:
        """Persona feedback: BIEL's fixed reply at regret 0, else words in the band's tone
        on the recommended `item` (in scrambled feedback the tone is `judged`'s)."""
        regret = regret_of(chosen, best)
        if regret == 0:
            return PERFECT
        messages = feedback_prompt(ctx, item, tone(regret))
        return self._guarded(
            messages, lambda: persona_feedback(chosen, best, item, prefs, seed, judged=judged)
        )

    def stats(self) -> dict[str, int]:
        return {"calls": self.calls, "leaks_caught": self.leaks, "rule_fallbacks": self.fallbacks}
