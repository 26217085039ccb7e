"""The simulated customer of a stream episode: answers the agent's questions in words.

Rule-based (the default): it reads which topics a question touches (a category or
theme, length, era, acclaim, language, maker, price, or "what are you after?") and
answers like a person, from its stated tastes. By default it knows its persona and the
category, not the products, as BIEL's customer does: asked about an item of the set by
id or title, it does not know that item, says so, and answers from its tastes in
general (the same words whichever item is named: no answer grades an item). With
`knows_items` (protocol `customer_knows: items`) it also knows the choice set and says
how one or two of a named item's attributes meet its tastes ("It's a western, which I
like, though it sounds long for me."): an agent can then grade items by asking about
them, which `bench/stream_item_probe.py` measures. It never reads the utilities, so no
answer states a score or names the best item. A persona without a preference model
(LLM-scored utilities) answers from its description. The same question in the same
context gets the same words; a repeated answer is marked as one ("As I said, ..."). No
answer holds a digit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.personas import Persona
from taurec.catalog.preferences import PreferenceModel
from taurec.tasks.stream import customer_words as words
from taurec.tasks.stream.feedback import persona_feedback

TOPIC_WORDS: Final = {
    "runtime": ("long", "short", "length", "runtime", "minutes", "hours", "duration"),
    "era": ("old", "new", "recent", "classic", "era", "decade", "year", "released", "modern"),
    "rating": ("rating", "review", "acclaim", "popular", "critic", "well-regarded", "quality"),
    "language": ("language", "subtitle", "foreign", "english", "dubbed"),
    "maker": ("director", "brand", "who made", "filmmaker", "studio", "maker", "store"),
    "price": ("price", "budget", "cheap", "expensive", "cost", "afford", "spend"),
}
#: Words of a question that ask what the customer wants in general.
GENERAL_WORDS: Final = (
    "looking for", "what do you", "prefer", "like", "enjoy", "mood", "want", "tell me",
    "favorite", "favourite", "taste", "after",
)  # fmt: skip
#: Words a description may use for a topic's taste ("frugal" for price), to find the
#: sentences that answer a question on it.
TOPIC_HINTS: Final = {
    "runtime": ("patience", "quick", "lengthy"),
    "era": ("nostalgic", "nostalgia", "vintage", "latest", "trendy"),
    "rating": ("acclaimed", "reputation", "trusted", "recommendations"),
    "language": ("languages", "bilingual", "reading"),
    "maker": ("brands", "loyal", "designer"),
    "price": ("money", "frugal", "thrifty", "affordable", "value", "bargain", "luxury"),
}
MAX_SENTENCES: Final = 3
#: What a customer who does not know the products says when asked about one.
UNKNOWN_ITEM: Final = "I don't know that one, so I can't say how I'd feel about it."
#: How an answer already given in this episode starts when it is given again.
AGAIN: Final = "As I said, "


@dataclass(frozen=True)
class CustomerContext:
    """What the customer knows in one episode: who they are and what is on offer."""

    persona: Persona
    category: str
    items: Sequence[ChoiceItem]
    #: The episode's utilities, for the stream's rules; no customer's words are drawn
    #: from them (tests check that answers stay the same when they are permuted).
    utilities: dict[str, float]
    #: This episode's questions so far, with the answers given (BIEL shows them to its
    #: customer when it answers and when it reacts to the recommendation).
    dialogue: tuple[tuple[str, str], ...] = ()
    #: Whether it knows the choice set's items (and so describes one it is asked about);
    #: by default it knows its tastes and the category only, as BIEL's customer.
    knows_items: bool = False


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
        judged: ChoiceItem | None = None,
    ) -> str:
        """Persona feedback on the recommended `item`; `judged`: the item whose utility
        `chosen` is and whose attributes give the reason, when not `item` (scrambled)."""
        ...


class RuleCustomer:
    """Deterministic answers from the persona's tastes (its preference model, or its
    description) and the items' attributes; never from utilities."""

    kind = "rule"

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
        """Persona feedback in words (see feedback.persona_feedback)."""
        return persona_feedback(chosen, best, item, prefs, seed, judged=judged)

    def answer(self, ctx: CustomerContext, question: str) -> str:
        q = normalised(question)
        named = named_items(ctx.items, q)
        rest = q
        for item in named:  # a title's words are not a topic ("The Long Goodbye")
            rest = rest.replace(item.title.lower(), " ").replace(item.id.lower(), " ")
        topics = [t for t, phrases in TOPIC_WORDS.items() if _mentions(rest, phrases)]
        prefs = ctx.persona.preferences
        known = list(named) if ctx.knows_items else []
        if prefs is None:
            said = self._from_description(ctx, known, rest, topics)
        else:
            said = self._from_preferences(ctx, prefs, known, rest, topics)
        if named and not known:  # it does not know the products (as BIEL's customer)
            said = [UNKNOWN_ITEM, *said]  # and what it wants in general
        text = " ".join(list(dict.fromkeys(s for s in said if s))[:MAX_SENTENCES])
        text = words.DIGIT.sub("", text).strip() or "I'm not sure, honestly."
        earlier = [a for q_, a in ctx.dialogue if _same_subject(ctx.items, q_, named)]
        return again(text, earlier)

    def _from_preferences(
        self,
        ctx: CustomerContext,
        prefs: PreferenceModel,
        named: Sequence[ChoiceItem],
        rest: str,
        topics: Sequence[str],
    ) -> list[str]:
        said = [
            words.item_line(prefs, item, topics, _ordinal(n, named))
            for n, item in enumerate(named[:MAX_SENTENCES])
        ]
        covered = {r.topic for item in named for r in words.remarks(prefs, item, topics)}
        said += [words.topic_line(t, prefs) for t in topics if t not in covered]
        said += self._about_names(prefs, ctx, rest)
        return said or [self._general(ctx, prefs)]

    def _about_names(self, prefs: PreferenceModel, ctx: CustomerContext, q: str) -> list[str]:
        out = []
        named = {c for i in ctx.items for c in i.categories} | set(prefs.categories)
        for cat in sorted(named):
            if spoken := _mention(q, cat.lower()):
                out.append(words.name_line("category", spoken, prefs.categories.get(cat, 0.0)))
        themes = {k for i in ctx.items for k in i.keywords} | set(prefs.keywords)
        for kw in sorted(themes):
            if spoken := _mention(q, kw.lower()):
                out.append(words.name_line("keyword", spoken, prefs.keywords.get(kw, 0.0)))
        makers = {i.maker for i in ctx.items if i.maker} | set(prefs.makers)
        for maker in sorted(makers):
            if _mention(q, maker.lower()):
                out.append(words.name_line("maker", maker, prefs.makers.get(maker, 0.0)))
        return out

    def _general(self, ctx: CustomerContext, prefs: PreferenceModel) -> str:
        shown = {c for i in ctx.items for c in i.categories}
        likes = sorted(
            (c for c, w in prefs.categories.items() if w > 0 and c in shown),
            key=lambda c: -prefs.categories[c],
        )
        dislikes = [c for c, w in prefs.categories.items() if w < 0 and c in shown]
        parts = [f"I'm shopping for {words.category_words(ctx.category)} for myself."]
        if likes:
            parts.append(f"I especially enjoy {likes[0].lower()}.")
        if dislikes:
            parts.append(f"I'd rather avoid {dislikes[0].lower()}.")
        if not likes and not dislikes:
            fav = max(prefs.keywords.items(), key=lambda kv: kv[1], default=None)
            if fav and fav[1] > 0:
                parts.append(f"I like stories with {fav[0].lower()}.")
        return " ".join(parts)

    def _from_description(
        self,
        ctx: CustomerContext,
        named: Sequence[ChoiceItem],
        rest: str,
        topics: Sequence[str],
    ) -> list[str]:
        description = ctx.persona.description
        if named:
            return [
                words.described_item_line(description, item, _ordinal(n, named))
                for n, item in enumerate(named[:MAX_SENTENCES])
            ]
        hints = [w for t in topics for w in (*TOPIC_WORDS[t], *TOPIC_HINTS[t])]
        found = words.shared(description, " ".join([rest, *hints]))
        if found:
            return [f"About me: {' '.join(found)}"]
        if topics or words.content_words(rest) - words.content_words(" ".join(GENERAL_WORDS)):
            return ["I don't have a strong preference about that."]
        who = words.sentences(description)[:1]
        return [f"I'm shopping for {words.category_words(ctx.category)} for myself.", *who]


def _mention(q: str, phrase: str) -> str:
    """`phrase` as `q` says it, as whole words or their plural ("thrillers"); "" if not."""
    found = phrase in q and re.search(rf"(?<!\w){re.escape(phrase)}s?(?!\w)", q)
    return found.group(0) if found else ""


def _mentions(q: str, phrases: Sequence[str]) -> bool:
    """Whether `q` holds any of `phrases` as whole words (or their plurals)."""
    return any(_mention(q, p) for p in phrases)


def normalised(question: str) -> str:
    """`question` in lower case, its spaces collapsed, one space at each end."""
    return " " + " ".join(question.lower().split()) + " "


def named_items(items: Sequence[ChoiceItem], q: str) -> list[ChoiceItem]:
    """The items of the choice set that question `q` (`normalised`) names by id or title,
    in the order the question names them."""
    found = []
    for item in items:
        key = item.id.lower()
        at = (
            [m.start() for m in re.finditer(rf"(?<!\w){re.escape(key)}(?!\w)", q)]
            if key in q
            else []
        )
        if len(item.title) > 3 and item.title.lower() in q:
            at.append(q.index(item.title.lower()))
        if at:
            found.append((min(at), item))
    return [item for _, item in sorted(found, key=lambda f: f[0])]


def _ordinal(n: int, named: Sequence[ChoiceItem]) -> str | None:
    return words.ORDINALS[n] if len(named) > 1 else None


def _same_subject(items: Sequence[ChoiceItem], question: str, named: list[ChoiceItem]) -> bool:
    """Whether an earlier `question` named the same items (none counts as the same)."""
    return named_items(items, normalised(question)) == named


def again(text: str, earlier: Sequence[str]) -> str:
    """`text`, marked as said before when it is among the `earlier` answers on the same
    subject in this episode."""
    if not any(a in (text, AGAIN + _lower_first(text)) for a in earlier):
        return text
    return AGAIN + _lower_first(text)


def _lower_first(text: str) -> str:
    return text if re.match(r"I\b", text) else text[:1].lower() + text[1:]
