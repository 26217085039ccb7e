"""Hints: how a user turns down a title that breaks a constraint they never stated.

A hint points in a direction ("that feels like a big time commitment") without the
predicate: no number, no field name, no operator words, no value. The bank is keyed by
(field, direction), where the direction says which way the title misses (too long,
too old, missing something wanted, having something unwanted). `hints_for` returns
every variant, so a test can check the whole bank.
"""

from __future__ import annotations

import random
from datetime import date
from typing import Any

from taurec.catalog.item import ContentRating, Item
from taurec.tasks.recommendation.constraint import Constraint, Op
from taurec.tasks.recommendation.task import MATURITY_ORDER

# direction names: HIGH/LOW = the title's value is above/below what the user wants;
# MISSING = it lacks something wanted; UNWANTED = it has something unwanted; OFF = other
HIGH, LOW, MISSING, UNWANTED, OFF = "high", "low", "missing", "unwanted", "off"

_GENERIC = (
    "something about that one doesn't feel right to me",
    "I can't quite say why, but that's not it",
    "that one just doesn't grab me",
)

BANK: dict[tuple[str, str], tuple[str, ...]] = {
    ("runtime", HIGH): (
        "that feels like a big time commitment tonight",
        "I don't think I have the stamina for that one tonight",
        "that sounds like it'd keep me up too late",
    ),
    ("runtime", LOW): (
        "that feels a bit slight, I want something I can sink into",
        "I was hoping for something more substantial to settle into",
        "that sounds like it'd end before I'm even settled in",
    ),
    ("rating", LOW): (
        "I've heard mixed things about that one",
        "I'm not sure that one's supposed to be any good",
        "that doesn't have the best reputation",
    ),
    ("rating", HIGH): (
        "that sounds a bit too prestigious for my mood",
        "everyone raves about that one, and I'm after something less fussed-over",
        "that feels like homework, honestly",
    ),
    ("vote_count", LOW): (
        "I've never heard of that one, I'd like something more people have seen",
        "that seems a bit obscure for me",
        "nobody I know has seen that one",
    ),
    ("vote_count", HIGH): (
        "that's a bit too mainstream for me",
        "everybody's seen that one, I'd like something less obvious",
        "I'm after more of a hidden gem",
    ),
    ("release_date", LOW): (
        "that feels a bit dated for me",
        "I'm in the mood for something fresher",
        "that sounds like it's showing its age",
    ),
    ("release_date", HIGH): (
        "that feels too new, I'm after something with more of a classic feel",
        "I'd like something that's stood the test of time",
        "that sounds a little too modern for my mood",
    ),
    ("content_rating", HIGH): (
        "that might be too much for my household",
        "I'm not sure that's suitable for everyone watching",
        "that sounds a bit much for us",
    ),
    ("content_rating", LOW): (
        "that sounds a bit tame for what I'm after",
        "that feels like it's aimed at little ones",
        "I was hoping for something with a bit more edge",
    ),
    ("content_rating", OFF): (
        "I'm not sure that one's right for us",
        "I don't think that's appropriate for us",
        "that doesn't feel quite right for our situation",
    ),
    ("original_language", MISSING): (
        "that's not quite what I want to be listening to",
        "I was hoping it would sound different from that",
        "that doesn't sound like what I had in mind to hear",
    ),
    ("original_language", UNWANTED): (
        "I'd like to hear something different from that one",
        "I was hoping for a change from that kind of thing",
        "that sounds a bit too familiar to my ears",
    ),
    ("streaming_services", MISSING): (
        "I'm not sure I can get that one",
        "I don't think I can watch that one at home",
        "I doubt that one's anywhere I can reach",
    ),
    ("streaming_services", UNWANTED): (
        "I'd rather not go where that one's showing",
        "I'd rather avoid where that one lives",
        "that's somewhere I'd rather not go to watch it",
    ),
    ("cast", MISSING): (
        "I was hoping to see a particular face in it",
        "that's not who I was hoping to see on screen",
        "I had someone in mind to watch, and that's not it",
    ),
    ("cast", UNWANTED): (
        "I'm not a fan of someone in that one",
        "there's somebody in that one I can't stand",
        "I'd rather not watch who's in that",
    ),
    ("director", MISSING): (
        "that's not quite the filmmaker I had in mind",
        "I had somebody else behind the camera in mind",
        "that's not made by who I was hoping for",
    ),
    ("director", UNWANTED): (
        "I'm not keen on whoever made that one",
        "I've had my fill of whoever's behind that one",
        "I'd like someone else behind the camera",
    ),
    ("genres", MISSING): (
        "that's not really the kind of story I'm in the mood for",
        "that's not quite the vibe I'm after",
        "I was hoping for something of a different flavour",
    ),
    ("genres", UNWANTED): (
        "that's not really my cup of tea tonight",
        "I'm not in the mood for that sort of thing",
        "that sounds like the wrong flavour for me",
    ),
    ("keywords", MISSING): (
        "that doesn't sound like what I had in mind",
        "that's not quite the story I was picturing",
        "I was picturing something else going on in it",
    ),
    ("keywords", UNWANTED): (
        "something about that premise puts me off",
        "I'd rather avoid that kind of plot",
        "that storyline doesn't appeal to me at all",
    ),
    ("sponsored", UNWANTED): (
        "that feels like it's being pushed at me",
        "I'd rather pick something nobody's paying to show me",
        "that sounds a bit like an advert, no thanks",
    ),
}

# genre-specific moods for a title that has a genre the user does not want
_UNWANTED_GENRE: dict[str, tuple[str, ...]] = {
    "horror": (
        "that sounds a bit too intense for me",
        "that might give me nightmares",
        "I'd like to sleep tonight, so maybe not that one",
    ),
    "romance": (
        "that sounds a bit too mushy for me",
        "I'm not in the mood for anything lovey-dovey",
        "a bit too much kissing for tonight",
    ),
    "animation": (
        "I'm not in the mood for that style of movie tonight",
        "I'd rather have real people on screen",
        "that looks a bit too drawn for my taste tonight",
    ),
}


def _ordered(v: Any, field: str, *, upper: bool = False) -> Any:
    if field == "release_date" and not isinstance(v, date):
        if isinstance(v, int):
            return date(v, 12, 31) if upper else date(v, 1, 1)
        return date.fromisoformat(str(v))
    return v


def _rank(field: str, v: Any) -> Any:
    if field == "content_rating":
        code = ContentRating(v)
        # NR is treated as unrated-adult, as the maturity gate does
        return len(MATURITY_ORDER) if code is ContentRating.NR else MATURITY_ORDER.index(code)
    return _ordered(v, field)


def direction(c: Constraint, item: Item) -> str:
    """Which way `item` misses constraint `c` (only meaningful when it does miss)."""
    f, op = c.field, c.op
    actual = getattr(item, f)
    if op in (Op.CONTAINS, Op.CONTAINS_ANY):
        return MISSING
    if op is Op.NOT_CONTAINS:
        return UNWANTED
    if f in ("runtime", "rating", "vote_count", "release_date", "content_rating"):
        if actual is None:
            return OFF
        have = _rank(f, actual.value if isinstance(actual, ContentRating) else actual)
        if op is Op.LE:
            return HIGH
        if op is Op.GE:
            return LOW
        if op is Op.BETWEEN:
            return LOW if have < _rank(f, c.value[0]) else HIGH
        if op in (Op.EQ, Op.IN):
            bounds = [_rank(f, v) for v in (c.value if op is Op.IN else [c.value])]
            if all(have > b for b in bounds):
                return HIGH
            if all(have < b for b in bounds):
                return LOW
            return OFF
        if f == "content_rating":  # != : the title has the one rating they rule out
            return HIGH if have >= MATURITY_ORDER.index(ContentRating.R) else LOW
        return OFF
    if f == "sponsored":
        return UNWANTED if item.sponsored else OFF
    # scalar strings: director, original_language, title
    return UNWANTED if op is Op.NE else MISSING


def hints_for(c: Constraint, item: Item) -> tuple[str, ...]:
    """Every hint variant for `item` missing hidden constraint `c`."""
    way = direction(c, item)
    if c.field == "genres" and way == UNWANTED:
        return _UNWANTED_GENRE.get(str(c.value).casefold(), BANK[("genres", UNWANTED)])
    return BANK.get((c.field, way), _GENERIC)


def hint(c: Constraint, item: Item, rng: random.Random) -> str:
    """One hint, chosen with `rng`: a lower-case clause without a full stop."""
    return rng.choice(hints_for(c, item))
