"""How a stream's customer puts its tastes into words.

Every phrase here is a function of the persona (its preference model or its
description) and of an item's listed attributes, never of a utility: a taste stated on
its own ("I love comedy."), a named item's attributes as they meet those tastes ("It's a
western, which I like, though it sounds long for me."), the full set of tastes for an LLM
customer's prompt, and, for a persona without a preference model, the sentences of its
description that share words with a question. No phrase holds a digit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.preferences import PreferenceModel

DIGIT: Final = re.compile(r"\d")
#: A taste weighted below this is one the customer does not bring up about an item.
NOTICED: Final = 0.15
#: Years from the preferred era within which an item "is from the era I like", and from
#: which on it sounds too old or too recent.
ERA_NEAR, ERA_FAR = 7, 15
#: Minutes from the ideal length within which "the length suits me", and from which on it
#: sounds long or short.
RUNTIME_NEAR, RUNTIME_FAR = 15, 25
#: Price as a share of what they would pay: at most this is easy, at least that is too much.
PRICE_EASY, PRICE_DEAR = 0.4, 0.9
#: Audience ratings (0-10) that a customer who cares about acclaim remarks on.
RATING_HIGH, RATING_LOW = 7.5, 5.5
ORDINALS: Final = ("first", "second", "third")


def category_words(name: str) -> str:
    """A category's name as the customer says it: lower case, without digits
    ("Drama, before 2010" -> "drama")."""
    if not DIGIT.search(name):
        return name.lower()
    head = name.split(",")[0]
    if not DIGIT.search(head):
        return head.lower()
    return " ".join(w for w in name.lower().split() if not DIGIT.search(w))


def decade_words(year: int) -> str:
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


def runtime_words(minutes: int) -> str:
    if minutes < 95:
        return "something short, well under two hours"
    if minutes < 125:
        return "a normal length, around two hours or a little less"
    return "something long; I don't mind well over two hours"


def liking(weight: float) -> str:
    if weight >= 0.6:
        return "I love"
    if weight > 0.2:
        return "I like"
    if weight > -0.2:
        return "I don't mind"
    return "I'd rather avoid"


def topic_line(topic: str, prefs: PreferenceModel) -> str:
    """What the customer says about one topic of its tastes (runtime, era, rating,
    language, maker, price), whatever the items."""
    if topic == "runtime":
        if prefs.runtime is None or prefs.runtime_weight < NOTICED:
            return "Length doesn't matter much to me."
        return f"I'd like {runtime_words(prefs.runtime)}."
    if topic == "era":
        if prefs.year is None or prefs.year_weight < NOTICED:
            return "I don't mind how old it is."
        return f"I'm happiest with something from {decade_words(prefs.year)}."
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
        foes = [m for m, w in prefs.makers.items() if w < 0]
        said = [f"I'm a fan of {_listing(fans)}."] if fans else []
        but = "I" if fans else "No favourites, but I"
        said += [f"{but} don't care for the work of {_listing(foes)}."] if foes else []
        return " ".join(said) or "I don't follow who made what."
    if topic == "price":
        if prefs.price_ceiling is None or prefs.price_weight < NOTICED:
            return "Price isn't a big concern for me."
        return "I'd like to keep the cost down."
    return ""


def name_line(kind: str, name: str, weight: float) -> str:
    """How the customer feels about a category, a theme or a maker the question names."""
    if kind == "category":
        return f"{liking(weight)} {name.lower()}."
    if kind == "maker":
        if weight == 0:
            return f"I don't know {name}'s work well."
        return f"I'm a fan of {name}'s work." if weight > 0 else f"I don't care for {name}'s work."
    return f"{liking(weight)} stories with {name.lower()}."


def tastes_in_words(prefs: PreferenceModel) -> list[str]:
    """The customer's whole preference model as first-person sentences (for a prompt)."""
    lines = []
    for verb, cats in (
        ("I love", [c for c, w in prefs.categories.items() if w >= 0.6]),
        ("I like", [c for c, w in prefs.categories.items() if 0.2 < w < 0.6]),
        ("I'd rather avoid", [c for c, w in prefs.categories.items() if w <= -0.2]),
    ):
        if cats:
            lines.append(f"{verb} {_listing(c.lower() for c in cats)}.")
    themes = [k for k, w in prefs.keywords.items() if w > 0]
    if themes:
        lines.append(f"I enjoy anything with {_listing(themes)}.")
    off = [k for k, w in prefs.keywords.items() if w < 0]
    if off:
        lines.append(f"I'm put off by anything with {_listing(off)}.")
    for topic in ("era", "runtime", "rating", "language", "maker", "price"):
        lines.append(topic_line(topic, prefs))
    return [line for line in lines if not DIGIT.search(line)]


def _listing(words: Iterable[str]) -> str:
    items = list(words)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class Remark:
    """One attribute of an item as it meets one of the customer's tastes."""

    topic: str  # category, keyword, maker, era, runtime, price, language or rating
    strength: float  # how much the customer cares about this taste (its weight)
    warm: bool  # whether the attribute pleases them
    clause: str  # e.g. "it's a western, which I like"


def remarks(prefs: PreferenceModel, item: ChoiceItem, asked: Sequence[str] = ()) -> list[Remark]:
    """What the customer could say about `item`: each listed attribute it has a feeling
    about, strongest taste first (ties in a fixed order). On a topic in `asked` (era,
    runtime, price) it also says when the item is neither close nor far."""
    out: list[Remark] = []
    for cat in item.categories:
        w = prefs.categories.get(cat, 0.0)
        if abs(w) > 0.2:  # liking() then says love, like or rather avoid
            out.append(Remark("category", abs(w), w > 0, f"it's {_kind(cat)}, which {liking(w)}"))
    for kw in item.keywords:
        w = prefs.keywords.get(kw, 0.0)
        if w != 0:
            feel = (
                "which puts me off"
                if w < 0
                else "which I really enjoy"
                if w >= 0.5
                else ("which I enjoy")
            )
            angle = f"it has {_article(kw.lower())} angle, {feel}"
            out.append(Remark("keyword", abs(w), w > 0, angle))
    w = prefs.makers.get(item.maker, 0.0) if item.maker else 0.0
    if w != 0:
        feel = "whose work I like" if w > 0 else "whose work I don't care for"
        out.append(Remark("maker", abs(w), w > 0, f"it's by {item.maker}, {feel}"))
    out += _fit_remarks(prefs, item, asked)
    return sorted(
        (r for r in out if not DIGIT.search(r.clause)),
        key=lambda r: -r.strength,  # sorted() is stable: equal strengths keep this order
    )


def _fit_remarks(prefs: PreferenceModel, item: ChoiceItem, asked: Sequence[str]) -> list[Remark]:
    """Era, length, price, language and acclaim: how well the item fits, in words."""
    out = []
    if prefs.year is not None and item.year is not None and prefs.year_weight >= NOTICED:
        gap = item.year - prefs.year
        if abs(gap) <= ERA_NEAR:
            out.append(Remark("era", prefs.year_weight, True, "it's from the kind of era I like"))
        elif abs(gap) >= ERA_FAR:
            old = "too old" if gap < 0 else "too recent"
            out.append(Remark("era", prefs.year_weight, False, f"it sounds {old} for me"))
        elif "era" in asked:
            old = "older" if gap < 0 else "newer"
            fair = f"it's a little {old} than I'd like, but that's fine"
            out.append(Remark("era", prefs.year_weight, True, fair))
    if prefs.runtime is not None and item.runtime is not None and prefs.runtime_weight >= NOTICED:
        gap = item.runtime - prefs.runtime
        if abs(gap) <= RUNTIME_NEAR:
            out.append(Remark("runtime", prefs.runtime_weight, True, "the length suits me"))
        elif abs(gap) >= RUNTIME_FAR:
            long = "long" if gap > 0 else "short"
            out.append(Remark("runtime", prefs.runtime_weight, False, f"it sounds {long} for me"))
        elif "runtime" in asked:
            long = "long" if gap > 0 else "short"
            fair = f"it's a little {long} for me, but that's fine"
            out.append(Remark("runtime", prefs.runtime_weight, True, fair))
    ceiling = prefs.price_ceiling
    if ceiling is not None and item.price is not None and prefs.price_weight >= NOTICED:
        share = item.price / ceiling
        if share <= PRICE_EASY:
            out.append(Remark("price", prefs.price_weight, True, "the price is easy on me"))
        elif share >= PRICE_DEAR:
            dear = "it costs more than I'd like to spend"
            out.append(Remark("price", prefs.price_weight, False, dear))
        elif "price" in asked:
            out.append(Remark("price", prefs.price_weight, True, "the price is all right"))
    if prefs.languages and item.language is not None and item.language not in prefs.languages:
        out.append(Remark("language", prefs.language_weight, False, "I'd need subtitles for it"))
    if item.rating is not None and prefs.rating_weight >= 0.6:
        strength = prefs.rating_weight / 2  # acclaim is on the listing; a person adds it last
        if item.rating >= RATING_HIGH:
            out.append(Remark("rating", strength, True, "it's well reviewed, which matters to me"))
        elif item.rating <= RATING_LOW:
            low = "it isn't well reviewed, which matters to me"
            out.append(Remark("rating", strength, False, low))
    return out


#: How a person names an item of a category ("it's a western"); others go bare ("it's horror").
KIND_NAMES: Final = {
    "adventure": "an adventure",
    "comedy": "a comedy",
    "documentary": "a documentary",
    "drama": "a drama",
    "family": "a family film",
    "history": "a history piece",
    "music": "a music film",
    "musical": "a musical",
    "mystery": "a mystery",
    "romance": "a romance",
    "thriller": "a thriller",
    "war": "a war story",
    "western": "a western",
}


def _kind(category: str) -> str:
    return KIND_NAMES.get(category.lower(), category.lower())


def _article(phrase: str) -> str:
    vowel = phrase[:1] in "aeiou" and not phrase.startswith(("one", "uni", "use", "eu"))
    return ("an " if vowel else "a ") + phrase


def item_line(
    prefs: PreferenceModel, item: ChoiceItem, topics: Sequence[str], ordinal: str | None
) -> str:
    """One sentence about a named item: at most two of its attributes as they meet the
    customer's tastes, those the question asks about first. `ordinal` ("first", ...)
    tells items apart when the question names several."""
    said = remarks(prefs, item, topics)
    said = [r for r in said if r.topic in topics] + [r for r in said if r.topic not in topics]
    lead = f"The {ordinal} one: " if ordinal else ""
    if not said:
        kind = next((c for c in item.categories if not DIGIT.search(c)), None)
        if kind is None:
            return f"{lead}Nothing about it stands out to me either way."
        return _sentence(lead, f"it's {_kind(kind)}; that's neither here nor there for me")
    first, *rest = said[:2]
    text = first.clause
    if rest:
        text += (", and " if rest[0].warm == first.warm else ", though ") + rest[0].clause
    return _sentence(lead, text)


def _sentence(lead: str, text: str) -> str:
    body = text if lead else text[0].upper() + text[1:]
    return f"{lead}{body}."


# --- a persona without a preference model: its description is all it has ---------------

_STOP: Final = frozenset((
    "about", "after", "also", "and", "any", "are", "because", "been", "being", "but", "can",
    "could", "did", "does", "doing", "don't", "for", "from", "had", "has", "have", "her",
    "here", "him", "his", "how", "into", "its", "just", "know", "like", "look", "looking",
    "make", "more", "most", "much", "not", "now", "one", "only", "other", "our", "out",
    "over", "really", "should", "some", "such", "tell", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "thing", "things", "this", "those", "through",
    "very", "want", "was", "were", "what", "when", "where", "which", "while", "who", "why",
    "will", "with", "would", "you", "your", "yours",
))  # fmt: skip
_SUFFIXES: Final = ("ings", "ing", "ers", "er", "es", "ed", "s")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """The words of `text` worth matching (no stop words, none under four letters)."""
    return {
        _stem(w)
        for w in re.findall(r"[a-z][a-z'-]+", text.lower())
        if len(w) >= 4 and w not in _STOP
    }


_UNITS: Final = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen",
)  # fmt: skip
_TENS: Final = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                "ninety")  # fmt: skip


def _spelled(match: re.Match[str]) -> str:
    n, decade = int(match.group(1)), match.group(2)
    if decade and n % 10 == 0:  # "60s", "1990s": the decade's name
        return _TENS[n % 100 // 10][:-1] + "ies" if n % 100 >= 20 else ""
    if n < 20:
        return _UNITS[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _UNITS[n % 10])
    return ""


def without_digits(text: str) -> str:
    """`text` with its numbers under a hundred (and decades) in words; other numbers go."""
    text = re.sub(r"(?<![\d.])(\d+)(s?)(?![\d.])", _spelled, text)
    return " ".join(w for w in text.split() if not DIGIT.search(w))


def sentences(description: str) -> list[str]:
    """The description's sentences, numbers in words (see `without_digits`)."""
    parts = re.split(r"(?<=[.!?])\s+", " ".join(description.split()))
    return [without_digits(p) for p in parts if without_digits(p)]


def shared(description: str, text: str, limit: int = 2) -> list[str]:
    """The description's sentences sharing a word with `text`, most shared words first."""
    wanted = content_words(text)
    scored = [(len(content_words(s) & wanted), n, s) for n, s in enumerate(sentences(description))]
    return [s for k, _, s in sorted(scored, key=lambda t: (-t[0], t[1])) if k > 0][:limit]


def described_item_line(description: str, item: ChoiceItem, ordinal: str | None) -> str:
    """A named item, for a customer who knows only its own description: what kind of
    item it is, and the part of who they are that the item touches, if any."""
    lead = f"The {ordinal} one: " if ordinal else ""
    kind = next((c for c in item.categories if not DIGIT.search(c)), None)
    found = shared(description, " ".join([item.title, *item.categories, *item.keywords]), 1)
    if found:
        start = f"it's {_kind(kind)}, and about me: " if kind else "about me: "
        return _sentence(lead, start + found[0].rstrip(".!?"))
    if kind:
        return _sentence(lead, f"it's {_kind(kind)}; that's neither here nor there for me")
    return f"{lead}Nothing about it stands out to me either way."
