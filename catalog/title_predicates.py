"""Does the text go on to say of a word what one only says of a film or a show?

A title made of ordinary words ("Normal", "Mercy", "Noise") that opens a sentence is
capitalised as any first word is, so its capital says nothing. What follows it can: a
reader takes "Normal is a slow-burn drama" and "Mercy is on Netflix" to name films, and
"Noise is everywhere" not. The text after the title (and its year, if written) says so
when it is one of:

- a copula and a noun phrase whose head is what a film is: "is a slow-burn drama", "was
  an easy pick", "is one of the best films", "is Spike Jonze's most tender film", "'s a
  great watch" (`FILM_NOUNS`: film,
  movie, drama, thriller, documentary, series, pick, watch, fit, ...);
- an apposition of that kind after a comma, dash or colon: "Normal, a quiet drama",
  "Mercy — an action thriller";
- a possessive and a part of a film: "Heat's runtime", "Mercy's cast", "Alien's
  production design" (`FILM_PARTS`); or having one: "has a great twist";
- what a film does or undergoes: "stars Rami Malek", "follows a nurse", "runs 95
  minutes", "is rated R", "is streaming on Hulu", "is on Netflix" (a streaming service),
  "came out in 2024", "was directed by", "is set in", "premiered at", "is based on", ...

The same words after a name ("David is a strong drama") say nothing of it: a person can
be one (catalog/title_evidence.py reads first names before this).
"""

from __future__ import annotations

import re
from functools import lru_cache

from taurec.catalog.services import SERVICE_ALIASES

FILM_NOUNS = (
    r"films?|movies?|dramas?|dramed(?:y|ies)|thrillers?|comed(?:y|ies)|rom-?coms?|romances?"
    r"|horror|documentar(?:y|ies)|docs?|docuseries|series|miniseries|shows?|sitcoms?"
    r"|features?|pictures?|flicks?|westerns?|musicals?|animations?|cartoons?|anime|biopics?"
    r"|sequels?|prequels?|remakes?|reboots?|adaptations?|classics?|epics?|satires?"
    r"|myster(?:y|ies)|whodunits?|noirs?|procedurals?|watch|rewatch|picks?|choices?"
    r"|options?|recommendations?|titles?|gems?|masterpieces?|crowd-?pleasers?"
    r"|tear-?jerkers?|weepies?|blockbusters?|indies?|debuts?|two-handers?|fantas(?:y|ies)"
    r"|adventures?|sci-?fi|actioners?|heists?|capers?|tales?|fables?|parables?|portraits?"
    r"|stor(?:y|ies)|sagas?|spectacles?|chillers?|slashers?|charmers?|character stud(?:y|ies)"
    r"|coming-of-age|slow-?burn|hits?|releases?|fit|match|episodes?"
)
FILM_PARTS = (
    r"runtime|run\s*time|running\s+time|cast|casting|ending|opening|score|soundtrack"
    r"|director|direction|plot|premise|twist|pacing|cinematography|production\s+design"
    r"|script|screenplay|trailer|sequel|prequel|remake|finale|climax|dialogue|visuals"
    r"|rating|reviews|box\s+office|budget|characters|protagonist|villain|performances"
    r"|editing|costumes|set\s+design|title\s+sequence|credits|scenes?|shots?|sequences?"
    r"|actors?|actress(?:es)?|leads?|stars?|writers?|music|setting|effects|story|storyline"
    r"|sound(?:\s+design)?|tone|themes?|moments?|camera(?:work)?"
)
#: What only a film is or has: a person can be a "pick" or a "classic", not a "drama".
FILM_ONLY_NOUNS = (
    r"films?|movies?|dramas?|thrillers?|comed(?:y|ies)|rom-?coms?|documentar(?:y|ies)"
    r"|docuseries|series|miniseries|sitcoms?|biopics?|sequels?|prequels?|remakes?|westerns?"
    r"|musicals?|animations?|cartoons?|whodunits?|noirs?|blockbusters?|slashers?|chillers?"
    r"|coming-of-age\s+(?:film|movie|drama|story|tale)s?"
)
FILM_ONLY_PARTS = (
    r"runtime|run\s*time|running\s+time|cast|cinematography|screenplay|script|trailer"
    r"|soundtrack|director|plot|premise|twist|finale|editing|box\s+office|credits|scenes?"
    r"|sequel|prequel|remake|lead\s+(?:actor|actress)"
)
_COPULA = (
    r"(?:is|was|'s|’s|remains|makes|becomes|(?:feels|seems|looks|sounds)(?:\s+like)?"
    r"|(?:would|might|could|should|will|may)\s+be)"
)
#: an article, a possessive pronoun or a name's possessive ("Spike Jonze's")
_DETERMINER = (
    r"(?:a|an|the|this|that|another|one|my|our|your|its|his|her|their|some|such a|quite a"
    r"|(?:(?-i:[A-Z])[\w-]*\s+){0,3}(?-i:[A-Z])[\w-]*['’]s)"
)
_ADVERBS = (
    r"(?:(?:really|truly|easily|probably|definitely|simply|also|still|just|not|surely"
    r"|honestly)\s+)*"
)
_MODIFIERS = r"(?:[\w'’-]+,?\s+){0,5}?"
_NOUN_PHRASE = rf"{_DETERMINER}\s+{_MODIFIERS}(?:[\w'’]+-)*(?:{FILM_NOUNS})\b"


@lru_cache(maxsize=1)
def _services() -> str:
    names = {n for canonical, aliases in SERVICE_ALIASES.items() for n in (canonical, *aliases)}
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


@lru_cache(maxsize=1)
def _film_talk() -> re.Pattern[str]:
    acts = (
        rf"{_COPULA}\s+{_ADVERBS}{_NOUN_PHRASE}",
        rf"\s*(?:,|:|—|–|-)\s*{_NOUN_PHRASE}",
        rf"(?:'s|’s|')\s+(?:\w+\s+)?(?:{FILM_PARTS})\b",
        rf"(?:has|had|features|boasts)\s+{_DETERMINER}\s+{_MODIFIERS}(?:{FILM_PARTS})s?\b",
        rf"{_COPULA}\s+{_ADVERBS}(?:(?:rated|certified)\s+(?:g|pg|pg-13|r|nc-17|\d)"
        r"|(?:now\s+|currently\s+)?(?:streaming|available|playing|showing|screening)\b"
        rf"|(?:now\s+|currently\s+)?on\s+(?:{_services()})\b|in\s+(?:theaters|theatres|cinemas)"
        r"|(?:directed|written|produced|shot|filmed|adapted|released|nominated|set|based)\s"
        r"|(?:\d+|one|two|three)\s+(?:minutes|mins|hours?)\b|out\s+(?:now|on|in)\b)",
        r"(?:stars|co-stars|starring)\s+(?-i:[A-Z])",
        r"(?:follows|tracks|chronicles|depicts|dramati[sz]es|centers\s+on|centres\s+on"
        r"|tells\s+(?:the\s+story|of|a|an|how)|traces|revolves\s+around|adapts)\s+"
        r"(?:a|an|the|two|three|four|his|her|their|how|(?-i:[A-Z]))",
        r"(?:runs|clocks\s+in\s+at|lasts)\s+"
        r"(?:(?:about|just|over|under|nearly|around)\s+)?(?:\d|one|two|three)",
        r"(?:came|comes)\s+out\b|(?:premiered|debuted|opened|streams|screened)\s|takes\s+place\s"
        r"|(?:won|earned|received)\s+(?:\w+\s+){0,2}(?:oscars?|awards?|academy|palme|golden|"
        r"emmys?|baftas?|reviews|raves|nominations?)",
    )
    return re.compile(r"\s*(?:" + "|".join(f"(?:{a})" for a in acts) + ")", re.IGNORECASE)


def says_film(text: str, at: int) -> bool:
    """Whether the text from offset `at`, right after a title, goes on to say what one only
    says of a film or show (see the module docstring)."""
    return _film_talk().match(text, at) is not None


@lru_cache(maxsize=1)
def _only_a_film() -> re.Pattern[str]:
    phrase = rf"{_DETERMINER}\s+{_MODIFIERS}(?:[\w'’]+-)*(?:{FILM_ONLY_NOUNS})\b"
    acts = (
        rf"{_COPULA}\s+{_ADVERBS}{phrase}",
        rf"\s*(?:,|:|—|–|-)\s*{phrase}",
        rf"(?:'s|’s|')\s+(?:\w+\s+)?(?:{FILM_ONLY_PARTS})\b",
        r"(?:runs|clocks\s+in\s+at|lasts)\s+(?:(?:about|just|over|under|nearly|around)\s+)?\d",
        r"(?:is|was)\s+(?:rated\s+(?:g|pg|pg-13|r|nc-17)|directed\s+by|streaming\s+on)\b",
    )
    return re.compile(r"\s*(?:" + "|".join(f"(?:{a})" for a in acts) + ")", re.IGNORECASE)


def says_only_a_film(text: str, at: int) -> bool:
    """Whether what follows the word at `at` can be said of a film and not of a person:
    "David is a quiet coming-of-age film", "David's director", "David runs 95 minutes"
    (a first name that is also a title counts as the title then)."""
    return _only_a_film().match(text, at) is not None
