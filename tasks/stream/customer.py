"""The simulated customer of a stream episode: answers the agent's questions in words.

Rule-based (the default): it reads which topics a question touches (an item of the
choice set, a category or theme, length, era, acclaim, language, maker, price, or
"what are you after?") and answers each from its hidden preference model, in one or two
short sentences, the same way every time. It never states a number: no utility, no
score, not even a year or a runtime in digits. A persona without a preference model
(LLM-scored utilities) answers about items from their utilities, in words, and about
everything else from the items it likes best.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.personas import Persona
from taurec.catalog.preferences import PreferenceModel
from taurec.tasks.stream.feedback import persona_feedback

_DIGIT = re.compile(r"\d")
TOPIC_WORDS: Final = {
    "runtime": ("long", "short", "length", "runtime", "minutes", "hours", "duration"),
    "era": ("old", "new", "recent", "classic", "era", "decade", "year", "released", "modern"),
    "rating": ("rating", "review", "acclaim", "popular", "critic", "well-regarded", "quality"),
    "language": ("language", "subtitle", "foreign", "english", "dubbed"),
    "maker": ("director", "brand", "who made", "filmmaker", "studio", "maker", "store"),
    "price": ("price", "budget", "cheap", "expensive", "cost", "afford", "spend"),
    "general": (
        "looking for",
        "what do you",
        "prefer",
        "like",
        "enjoy",
        "mood",
        "want",
        "tell me",
        "favorite",
        "favourite",
        "taste",
    ),
}
MAX_SENTENCES: Final = 3


def _words_for_decade(year: int) -> str:
    decade = year // 10 * 10
    names = {
        1970: "the seventies",
        1980: "the eighties",
        1990: "the nineties",
        2000: "the two-thousands",
        2010: "the twenty-tens",
        2020: "the last few years",
    }
    return names.get(decade, "older times" if decade < 1970 else "the last few years")


def _words_for_runtime(minutes: int) -> str:
    if minutes < 95:
        return "something short, well under two hours"
    if minutes < 125:
        return "a normal length, around two hours or a little less"
    return "something long; I don't mind well over two hours"


def _liking(weight: float) -> str:
    if weight >= 0.6:
        return "I love"
    if weight > 0.2:
        return "I like"
    if weight > -0.2:
        return "I don't mind"
    return "I'd rather avoid"


@dataclass(frozen=True)
class CustomerContext:
    """What the customer knows in one episode: who they are and what is on offer."""

    persona: Persona
    category: str
    items: Sequence[ChoiceItem]
    utilities: dict[str, float]
    #: This episode's questions so far, with the answers given (BIEL shows them to its
    #: customer when it answers and when it reacts to the recommendation).
    dialogue: tuple[tuple[str, str], ...] = ()


class Customer(Protocol):
    """What a stream's simulated customer does: answer questions, react to a choice."""

    kind: str

    def answer(self, ctx: CustomerContext, question: str) -> str: ...

    def react(
        self,
        ctx: CustomerContext,
        chosen: float,
        best: float,
        item: ChoiceItem,
        prefs: PreferenceModel | None,
        seed: int,
    ) -> str: ...


class RuleCustomer:
    """Deterministic answers from the persona's preference model (or its utilities)."""

    kind = "rule"

    def react(
        self,
        ctx: CustomerContext,
        chosen: float,
        best: float,
        item: ChoiceItem,
        prefs: PreferenceModel | None,
        seed: int,
    ) -> str:
        """Persona feedback in words (see stream_feedback.persona_feedback)."""
        return persona_feedback(chosen, best, item, prefs, seed)

    def answer(self, ctx: CustomerContext, question: str) -> str:
        q = " " + question.lower() + " "
        sentences: list[str] = []
        sentences += self._about_items(ctx, q)
        prefs = ctx.persona.preferences
        if prefs is not None:
            sentences += self._about_names(prefs, ctx, q)
            for topic, words in TOPIC_WORDS.items():
                if topic != "general" and any(w in q for w in words):
                    sentences.append(self._topic(topic, prefs))
        if not sentences:
            sentences.append(self._general(ctx))
        text = " ".join(list(dict.fromkeys(s for s in sentences if s))[:MAX_SENTENCES])
        return _DIGIT.sub("", text).strip() or "I'm not sure, honestly."

    # --- what a question can be about -------------------------------------------------

    def _about_items(self, ctx: CustomerContext, q: str) -> list[str]:
        best = max(ctx.utilities.values()) if ctx.utilities else 0.0
        out = []
        for item in ctx.items:
            by_id = re.search(rf"(?<!\w){re.escape(item.id.lower())}(?!\w)", q)
            if by_id or (len(item.title) > 3 and item.title.lower() in q):
                gap = best - ctx.utilities.get(item.id, 0.0)
                if gap <= 5:
                    out.append("That one sounds just right for me.")
                elif gap <= 15:
                    out.append("That one sounds good to me.")
                elif gap <= 30:
                    out.append("That one is okay, but not really exciting for me.")
                else:
                    out.append("That one isn't for me.")
        return out[:MAX_SENTENCES]

    def _about_names(self, prefs: PreferenceModel, ctx: CustomerContext, q: str) -> list[str]:
        out = []
        named = {c for i in ctx.items for c in i.categories} | set(prefs.categories)
        for cat in sorted(named):
            if cat.lower() in q:
                out.append(f"{_liking(prefs.categories.get(cat, 0.0))} {cat.lower()}.")
        themes = {k for i in ctx.items for k in i.keywords} | set(prefs.keywords)
        for kw in sorted(themes):
            if kw.lower() in q:
                out.append(f"{_liking(prefs.keywords.get(kw, 0.0))} stories with {kw.lower()}.")
        return out

    def _topic(self, topic: str, prefs: PreferenceModel) -> str:
        if topic == "runtime":
            if prefs.runtime is None or prefs.runtime_weight < 0.15:
                return "Length doesn't matter much to me."
            return f"I'd like {_words_for_runtime(prefs.runtime)}."
        if topic == "era":
            if prefs.year is None or prefs.year_weight < 0.15:
                return "I don't mind how old it is."
            return f"I'm happiest with something from {_words_for_decade(prefs.year)}."
        if topic == "rating":
            if prefs.rating_weight >= 0.7:
                return "Good reviews matter a lot to me."
            if prefs.rating_weight >= 0.4:
                return "Good reviews help, but they aren't everything."
            return "I don't care much what critics think."
        if topic == "language":
            if prefs.languages and prefs.language_weight > 0:
                return "I'd much rather have it in English."
            return "Any language is fine; subtitles don't bother me."
        if topic == "maker":
            fans = [m for m, w in prefs.makers.items() if w > 0]
            return f"I'm a fan of {fans[0]}." if fans else "I don't follow who made what."
        if topic == "price":
            if prefs.price_ceiling is None or prefs.price_weight < 0.15:
                return "Price isn't a big concern for me."
            return "I'd like to keep the cost down."
        return ""

    def _general(self, ctx: CustomerContext) -> str:
        prefs = ctx.persona.preferences
        if prefs is None:
            top = max(ctx.items, key=lambda i: ctx.utilities.get(i.id, 0.0))
            liked = ", ".join(c.lower() for c in top.categories[:2]) or ctx.category.lower()
            return f"I'm after something in {ctx.category.lower()}; I tend to like {liked}."
        shown = {c for i in ctx.items for c in i.categories}
        likes = sorted(
            (c for c, w in prefs.categories.items() if w > 0 and c in shown),
            key=lambda c: -prefs.categories[c],
        )
        dislikes = [c for c, w in prefs.categories.items() if w < 0 and c in shown]
        parts = [f"I'm shopping for {ctx.category.lower()} for myself."]
        if likes:
            parts.append(f"I especially enjoy {likes[0].lower()}.")
        if dislikes:
            parts.append(f"I'd rather avoid {dislikes[0].lower()}.")
        if not likes and not dislikes:
            fav = max(prefs.keywords.items(), key=lambda kv: kv[1], default=None)
            if fav and fav[1] > 0:
                parts.append(f"I like stories with {fav[0].lower()}.")
        return " ".join(parts)
