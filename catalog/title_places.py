"""Is a one-word title found in text the name of a place there ("after leaving Brackford")?

A plot summary names places, and a place can share its name with a catalog title. A
one-word title right after a word that takes a place as its object is read as the
place, not the title, unless the title is marked as one (quotes, emphasis, a year in
brackets, "the film X": catalog/title_evidence.py):

- a preposition of place: in, at, from, into, near, outside, across, beyond, ...
  ("grew up in Brackford", "the night at Brackford");
- a verb of leaving, reaching or visiting that takes the place directly: leaving, left,
  visits, reaches, flees, ... ("after leaving Brackford");
- "to" after a verb or noun of going: returns to, moves to, goes back to, the road to,
  a trip to, ... ("she returns to Brackford"; not "similar to Hamnet");
- "of" after a noun of place or of the people who live in one: the town of, the streets
  of, the mayor of, ... ("the streets of Brackford");
- or when the text goes on to say it is a place: "Brackford is a quiet town on the
  coast", "Ashgrove, a mining town", "Ashgrove is where he grew up" (`names_place`).

A preposition after a word that takes a work as its object reads the title as the work
("her role in Hamnet", "a scene from Hamnet", "brilliant in Hamnet", "interested in
Hamnet", "a look at Hamnet"). Titles of two or more words are never read as places:
"Leaving Aldercrest" and "Nights in Ulmfell" are titles wherever they stand.
"""

from __future__ import annotations

import re
from typing import Final


def _split(words: str) -> frozenset[str]:
    return frozenset(words.split())


PREPOSITIONS: Final = _split(
    "in at from into near outside inside across around beyond within throughout onto"
)
PLACE_VERBS: Final = _split(
    "leave leaves leaving left visit visits visiting visited reach reaches reaching reached "
    "enter enters entering entered flee flees fleeing fled escape escapes escaping escaped "
    "explore explores exploring explored invade invades invading invaded tour tours touring "
    "toured inhabit inhabits roam roams roaming roamed"
)
#: Words of going before "to": the place follows ("returns to Brackford").
GOING: Final = _split(
    "return returns returning returned go goes going went gone come comes coming came "
    "move moves moving moved head heads heading headed travel travels travelling traveling "
    "travelled traveled drive drives driving drove fly flies flying flew sail sails sailing "
    "sailed walk walks walking walked ride rides riding rode run runs running ran flee flees "
    "fled relocate relocates relocated journey journeys journeyed back way road trip "
    "journey voyage drive flight sent exiled banished transferred posted summoned bound "
    "arrive arrives arrived"
)
#: Nouns of a place, what a place is.
PLACES: Final = _split(
    "town towns city cities village villages hamlet port county kingdom island isle valley "
    "province region state capital planet land realm republic suburb neighbourhood "
    "neighborhood district borough parish settlement outpost colony harbour harbor"
)
#: Nouns of place, or of who lives in one, before "of": the place follows ("the town of
#: Brackford", "the mayor of Brackford").
PLACE_NOUNS: Final = PLACES | _split(
    "streets street outskirts suburbs heart shores mayor people residents townsfolk "
    "townspeople citizens inhabitants sheriff governor"
)
#: Words that take a work as their object: a preposition after one reads the title as the
#: work ("her role in Hamnet", "a scene from Hamnet", "interested in Hamnet").
WORK_WORDS: Final = _split(
    "role roles part parts performance performances turn acting cast star stars starred "
    "starring appear appears appeared appearing appearance work scene scenes moment moments "
    "score soundtrack music songs song ending twist dialogue line lines quote character "
    "characters cinematography visuals shot shots sequence sequences clip still look glance "
    "peek interested involved featured seen director writer composer actor actress team "
    "great brilliant superb excellent wonderful terrific fantastic amazing good best strong "
    "incredible stunning remarkable outstanding phenomenal memorable unforgettable "
    "different departure break step get getting got dive diving settle"
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def is_place(text: str, start: int) -> bool:
    """Whether the one-word title at text[start:] stands where a place does (module
    docstring): only plain spaces between it and the words before it."""
    origin = max(0, start - 60)  # the words just before it: no copy of the whole text
    head = text[origin:start]
    if not head.endswith(" "):
        return False
    words = list(_WORD.finditer(head))
    base = origin
    spoken = [w.group().casefold() for w in words]
    if not spoken or not head[words[-1].end() :].isspace():
        return False
    before = spoken[-1]
    two = spoken[-2] if len(spoken) > 1 else ""
    joined = len(words) > 1 and text[base + words[-2].end() : base + words[-1].start()] == " "
    if before in PREPOSITIONS:
        return not (joined and two in WORK_WORDS)
    if before in PLACE_VERBS:
        return True
    if before == "to":
        return joined and two in GOING
    if before == "of":
        return joined and two in PLACE_NOUNS
    return False


_PLACE_TALK = re.compile(
    r"\s*(?:(?:(?:is|was|'s|’s|remains|lies|sits)\s+|,\s*|\s+(?:—|–)\s+)"
    r"(?:a|an|the|this|that)\s+(?:[\w'’-]+,?\s+){0,4}?"
    rf"(?:{'|'.join(sorted(PLACES))})\b|(?:is|was|'s|’s)\s+where\b)",
    re.IGNORECASE,
)


def names_place(text: str, at: int) -> bool:
    """Whether the text from offset `at`, right after a one-word title, says it is a place
    ("is a quiet town", ", a small mining town")."""
    return _PLACE_TALK.match(text, at) is not None
