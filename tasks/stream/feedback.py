"""What the customer tells the agent after each recommendation of a stream.

Four kinds, as BIEL defines and words them: `regret` ("Recommendation feedback: Chosen
score: 62.5, Best possible: 80.0, Regret: 17.5", each number with one decimal as BIEL
formats it), `stars` ("Recommendation rating: 4 out of 5 stars (best possible: 5
stars)", max(1, min(5, round(5·chosen/best))) with Python's round, which rounds halves
to even), `persona` (the customer's own words, whose tone follows the regret band and
which never holds a digit), and `none`. Pure functions of the episode and the choice;
the persona's words are deterministic per seed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Final

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.preferences import PreferenceModel
from taurec.tasks.stream.task import FeedbackKind

#: BIEL's fixed reply to a recommendation with regret 0.
PERFECT: Final = "Perfect! This is exactly what I was looking for. Great recommendation!"
#: Regret bands of the persona's tone: (upper bound inclusive, tone).
TONE_BANDS: Final = ((10.0, "positive"), (30.0, "moderate"), (float("inf"), "dissatisfied"))
_DIGIT = re.compile(r"\d")

OPENERS: Final = {
    "positive": (
        "I really like this one.",
        "This is a great pick for me.",
        "Oh, this is very close to what I wanted.",
    ),
    "moderate": (
        "It's okay, but not quite what I had in mind.",
        "Hmm, this is fine, though I think there were better options for me.",
        "I can see why you picked it, but it doesn't fully click for me.",
    ),
    "dissatisfied": (
        "Honestly, this isn't for me.",
        "I'm disappointed; this misses what I was after.",
        "No, this really doesn't suit me.",
    ),
}


def regret_of(chosen: float, best: float) -> float:
    """BIEL's regret: how far the choice falls below the best (never negative)."""
    return max(0.0, best - chosen)


def regret_feedback(chosen: float, best: float) -> str:
    """BIEL's regret feedback, its numbers with one decimal."""
    return (
        f"Recommendation feedback: Chosen score: {chosen:.1f}, Best possible: {best:.1f}, "
        f"Regret: {regret_of(chosen, best):.1f}"
    )


def stars(chosen: float, best: float) -> int:
    """1-5 stars: 5·chosen/best rounded as Python rounds (halves to even), kept in 1-5."""
    if best <= 0:
        return 5 if chosen >= best else 1
    return max(1, min(5, round(5 * chosen / best)))


def stars_feedback(chosen: float, best: float) -> str:
    """BIEL's star feedback."""
    return f"Recommendation rating: {stars(chosen, best)} out of 5 stars (best possible: 5 stars)"


def tone(regret: float) -> str:
    """The persona's tone for this regret: positive (≤10), moderate (≤30), dissatisfied."""
    return next(name for bound, name in TONE_BANDS if regret <= bound)


_PHRASES: Final = {
    ("categories", True): "It is the kind of {cat} I enjoy.",
    ("categories", False): "I'm not really into {cat}.",
    ("keywords", True): "I love a story like this.",
    ("keywords", False): "The subject matter puts me off.",
    ("era", True): "It's from the kind of era I like.",
    ("era", False): "It feels like the wrong era for me.",
    ("runtime", True): "The length suits me.",
    ("runtime", False): "The length doesn't suit me.",
    ("rating", True): "People seem to love it, which matters to me.",
    ("rating", False): "It doesn't seem very well regarded.",
    ("language", True): "The language works for me.",
    ("language", False): "I'd rather not read subtitles.",
    ("maker", True): "I like who made it.",
    ("maker", False): "I'm not a fan of who made it.",
    ("price", True): "The price is fair.",
    ("price", False): "It's more than I want to spend.",
}


def _reason(
    judged: ChoiceItem, prefs: PreferenceModel | None, liked: bool, about: ChoiceItem
) -> str:
    """One sentence on why: the attribute of `judged` that pleased (or displeased) the
    customer most, as their tastes weigh it. A category is named from `about`'s (the item
    recommended): in scrambled feedback `judged` is another item, and a reason naming a
    kind the recommended item is not would give the control away; when `about` has no
    such kind, the next attribute of `judged` is given instead."""
    if prefs is None:
        return ""
    parts = sorted(prefs.components(judged).items(), key=lambda kv: kv[1], reverse=liked)
    weights = prefs.categories
    for name, value in parts:  # strongest first: a wrong sign means none is left
        if (liked and value <= 0) or (not liked and value >= 0):
            return ""
        if name != "categories":
            return _PHRASES[(name, liked)]
        cats = [c for c in about.categories if (weights.get(c, 0) > 0) == liked and c in weights]
        if cats or about is judged:
            return _PHRASES[(name, liked)].format(cat=(cats[0] if cats else "thing").lower())
    return ""


def persona_feedback(
    chosen: float,
    best: float,
    item: ChoiceItem,
    prefs: PreferenceModel | None,
    seed: int,
    judged: ChoiceItem | None = None,
) -> str:
    """The customer's reaction in words: a tone from the regret band and a reason from
    their tastes, drawn from `judged` (the item recommended, `item`, unless scrambled
    feedback judges another; `chosen` is then that item's utility). Regret 0 gives BIEL's
    fixed reply. Never contains a digit."""
    regret = regret_of(chosen, best)
    if regret == 0:
        return PERFECT
    mood = tone(regret)
    rng = random.Random(f"persona-feedback:{seed}")
    text = rng.choice(OPENERS[mood])
    reason = _reason(judged or item, prefs, liked=mood == "positive", about=item)
    if reason and not _DIGIT.search(reason):
        text += " " + reason
    return text


FeedbackText = Callable[[float, float, ChoiceItem, PreferenceModel | None, int], str | None]


def feedback_text(
    kind: FeedbackKind,
    chosen: float,
    best: float,
    item: ChoiceItem,
    prefs: PreferenceModel | None,
    seed: int,
    *,
    about: ChoiceItem | None = None,
) -> str | None:
    """The feedback of `kind` on `item`, whose utility is `chosen` (None for `none`);
    `about`: the item recommended, when the feedback judges another (scrambled)."""
    if kind is FeedbackKind.PERSONA:
        return persona_feedback(chosen, best, about or item, prefs, seed, judged=item)
    return FEEDBACK[kind](chosen, best, item, prefs, seed)


FEEDBACK: Final[dict[FeedbackKind, FeedbackText]] = {
    FeedbackKind.REGRET: lambda c, b, i, p, s: regret_feedback(c, b),
    FeedbackKind.STARS: lambda c, b, i, p, s: stars_feedback(c, b),
    FeedbackKind.PERSONA: persona_feedback,
    FeedbackKind.NONE: lambda c, b, i, p, s: None,
}
