"""The leak guard: does a piece of user text give away a hidden constraint?

A hidden constraint is never stated (see `Reveal.HIDDEN`); the rule-based user keeps
to that by construction, a generated reply has to be checked. The guard flags any way
of saying a hidden constraint's value: numbers as digits or words (runtimes also as
hours), years and their decades, rating codes, genre words and their adjectives,
language names, service names with their aliases, people's full names and surnames,
keywords and titles; and, when no stated constraint shares the field, the field's own
name ("minutes", "streaming", "director"). A pattern a volunteer/on_ask constraint of
the task also produces is allowed, since stating that constraint is allowed.

The same guard vets prompt material (persona sentences, soft preferences, the user's
services), so an LLM is never handed a hidden value to repeat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from taurec.catalog.services import SERVICE_ALIASES
from taurec.server.recommendation.simulator.phrasing import LANGUAGE_NAMES, genre_word
from taurec.tasks.recommendation.constraint import Constraint, Reveal
from taurec.tasks.recommendation.task import RecommendationTask

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
         "nineteen"]  # fmt: skip
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_DECADE_WORDS = {0: "", 10: "tens", 20: "twenties", 30: "thirties", 40: "forties", 50: "fifties",
                 60: "sixties", 70: "seventies", 80: "eighties", 90: "nineties"}  # fmt: skip

#: Other words for a genre than the ones `phrasing.genre_word` and a plural give.
GENRE_FORMS: dict[str, tuple[str, ...]] = {
    "animation": ("animated", "cartoons?", "anime"),
    "romance": ("romantic", "rom-?coms?", "love stor(?:y|ies)"),
    "comedy": ("comedies", "comedic", "funny"),
    "documentary": ("documentaries", "docs?"),
    "science fiction": ("sci-?fi",),
    "history": ("historical",),
    "music": ("musical",),
    "mystery": ("mysteries", "whodunn?its?"),
    "horror": ("scary",),
    "thriller": ("suspense",),
    "family": ("family-friendly",),
    "war": ("wartime",),
}
#: Other names for a language than `phrasing.LANGUAGE_NAMES` gives.
LANGUAGE_FORMS: dict[str, tuple[str, ...]] = {
    "zh": ("Mandarin",),
    "fa": ("Farsi",),
    "hi": ("Bollywood",),
    "tl": ("Filipino",),
    "ko": ("K-drama",),
}
#: Service aliases that are everyday words, too common to flag on their own.
_EVERYDAY_ALIASES = frozenset({"max", "prime", "criterion"})

#: Field -> regex for words that name the field itself.
FIELD_PATTERNS: dict[str, str] = {
    "runtime": r"\bruntimes?\b|\brun ?time\b|running time|\bminutes?\b|\bmins\b|\bhours? long\b",
    "rating": r"(?<!content )(?<!age )(?<!maturity )\bratings?\b|out of (?:10|ten)\b|\bstars\b",
    "vote_count": r"\bvotes?\b|vote count",
    "release_date": r"release date|\breleased?\b",
    "content_rating": r"content rating|age rating|maturity rating|\bmpaa?\b",
    "original_language": r"original language|\blanguages?\b|\boriginally in\b|subtitle[sd]?\b|\bdubbed\b",
    "streaming_services": r"streaming|\bstreams? on\b|\bservices?\b|\bsubscriptions?\b",
    "director": r"\bdirect(?:or|ors|ed)\b|\bfilmmakers?\b",
    "cast": r"\bcast\b|\bstarring\b|\bactors?\b|\bactress(?:es)?\b",
    "genres": r"\bgenres?\b",
    "keywords": r"\bkeywords?\b",
    "sponsored": r"\bsponsored\b|\bpromoted\b|\bpaid placement\b",
}


def _words(n: int) -> str:
    """A regex for `n` (0 <= n < 10000) in words, with the usual spacing and 'and' variants."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + (f"[\\s-]{_ONES[n % 10]}" if n % 10 else "")
    if n < 1000:
        head = "(?:one|a) hundred" if n // 100 == 1 else f"{_ONES[n // 100]} hundred"
        return f"{head}(?: and)?(?: {_words(n % 100)})?" if n % 100 else head
    rest = f"(?: and)? {_words(n % 1000)}" if n % 1000 else ""
    head = "(?:one|a) thousand" if n // 1000 == 1 else f"{_words(n // 1000)} thousand"
    return head + rest


def _number_patterns(v: float) -> list[str]:
    whole = int(v)
    forms = {f"{v:g}"} | ({str(whole), f"{whole:,}"} if v == whole else set())
    if v == whole and whole >= 1000 and whole % 1000 == 0:
        forms.add(f"{whole // 1000}k")
    out = [rf"(?<![\w.,-])(?:{'|'.join(map(re.escape, sorted(forms)))})(?!\d|[.,]\d)"]
    if 2 <= whole < 10000:  # "one" is too common a word to stand for the number
        half = r"(?: and a half| point five)" if v - whole == 0.5 else ""
        out.append(rf"\b{_words(whole)}{half}\b")
    return out


def _hour_patterns(minutes: float) -> list[str]:
    """A runtime said in hours: 90 -> "an hour and a half", "1.5 hours"."""
    if minutes % 30 or not 60 <= minutes <= 300:
        return []
    hours, half = int(minutes // 60), minutes % 60 == 30
    word = "(?:an|one)" if hours == 1 else _words(hours)
    forms = [rf"\b{word}(?: and a half)? hours?\b" if half else rf"\b{word} hours?\b"]
    digits = f"{hours}(?:\\.5| and a half)" if half else str(hours)
    forms.append(rf"(?<![\w.]){digits} ?(?:hours?|hrs?|h)\b")
    if half:
        forms.append(rf"\b{word} and a half hours?\b")
    return forms


def _year_patterns(v: Any) -> list[str]:
    y = v.year if isinstance(v, date) else v if isinstance(v, int) else date.fromisoformat(v).year
    decade = y // 10 * 10
    out = [
        rf"(?<!\d){y}(?!\d)",
        rf"\b{_words(y)}\b",
        rf"\b{_words(y // 100)} {_words(y % 100)}\b" if y % 100 >= 10 else rf"\b{_words(y)}\b",
        rf"(?<![\w']){decade}'?s\b",
        rf"(?<![\w\d])'?{decade % 100:02d}'?s\b",
    ]
    if _DECADE_WORDS.get(decade % 100):
        out.append(rf"\b{_DECADE_WORDS[decade % 100]}\b")
    return out


def _service_patterns(name: str) -> list[str]:
    canon = next((k for k in SERVICE_ALIASES if k.casefold() == name.casefold()), name)
    names = [canon, *SERVICE_ALIASES.get(canon, ())]
    return [
        rf"(?<!\w){re.escape(n)}(?!\w)"
        for n in names
        if n.casefold() not in _EVERYDAY_ALIASES and len(n) >= 3
    ]


def value_patterns(c: Constraint) -> list[str]:
    """Regexes (matched case-insensitively) for every way a text could say `c`'s value."""
    out: list[str] = []
    for v in c.value if isinstance(c.value, list) else [c.value]:
        f = c.field
        if f in ("runtime", "rating", "vote_count"):
            out += _number_patterns(v) + (_hour_patterns(v) if f == "runtime" else [])
        elif f == "release_date":
            out += _year_patterns(v)
        elif f == "content_rating":
            out.append(rf"(?<![\w-]){re.escape(v)}(?![\w]|-\d)")
            out += [r"\bunrated\b", r"\bnot rated\b"] if v == "NR" else []
        elif f == "genres":
            low = str(v).lower()
            forms = {rf"{re.escape(low)}s?", re.escape(genre_word(v).lower())}
            out += [rf"\b(?:{g})\b" for g in sorted(forms | set(GENRE_FORMS.get(low, ())))]
        elif f == "original_language":
            names = [LANGUAGE_NAMES.get(str(v).lower(), str(v)), *LANGUAGE_FORMS.get(v, ())]
            out += [rf"\b{re.escape(n)}\b" for n in names]
        elif f == "streaming_services":
            out += _service_patterns(str(v))
        elif f in ("cast", "director"):
            out.append(rf"\b{re.escape(v)}\b")
            surname = str(v).split()[-1]
            out += [rf"\b{re.escape(surname)}\b"] if len(surname) >= 3 else []
        elif f == "sponsored":
            out.append(FIELD_PATTERNS["sponsored"])
        else:
            out.append(rf"\b{re.escape(str(v))}\b")
    return out


@dataclass(frozen=True)
class Rule:
    """One way of giving a hidden constraint away."""

    what: str  # e.g. "runtime <= 100 (value)" or "runtime <= 100 (field)"
    constraint: Constraint
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Leak:
    rule: Rule
    said: str  # the words that matched

    @property
    def what(self) -> str:
        return self.rule.what


def forbidden(task: RecommendationTask) -> list[Rule]:
    """Every rule of `task`: hidden values and, where no stated constraint shares the
    field, hidden fields' names; minus patterns a stated constraint produces as well."""
    stated = [c for c in task.constraints if c.reveal is not Reveal.HIDDEN]
    allowed = {p for c in stated for p in value_patterns(c)}
    stated_fields = {c.field for c in stated}
    rules: list[Rule] = []
    for c in task.constraints_by(Reveal.HIDDEN):
        for p in dict.fromkeys(value_patterns(c)):
            if p not in allowed:
                rules.append(Rule(f"{c} (value)", c, re.compile(p, re.I)))
        if c.field not in stated_fields and c.field in FIELD_PATTERNS:
            rules.append(Rule(f"{c} (field)", c, re.compile(FIELD_PATTERNS[c.field], re.I)))
    return rules


class LeakGuard:
    """The leak rules of one task. Build once per episode; `find` is pure."""

    def __init__(self, task: RecommendationTask) -> None:
        self.rules = forbidden(task)

    def find(self, text: str, *, ignore: tuple[str, ...] = ()) -> list[Leak]:
        """Every rule `text` breaks, with the words that broke it (first match per rule).

        Occurrences of the `ignore` phrases (say, titles the agent proposed, which the
        user may repeat) are blanked out first."""
        for phrase in ignore:
            text = re.sub(re.escape(phrase), lambda m: " " * len(m.group()), text, flags=re.I)
        return [Leak(r, m.group()) for r in self.rules if (m := r.pattern.search(text))]

    def clean(self, text: str) -> bool:
        return not any(r.pattern.search(text) for r in self.rules)

    def keep_clean(self, sentences: list[str]) -> list[str]:
        """The sentences that give nothing away, in order."""
        return [s for s in sentences if self.clean(s)]
