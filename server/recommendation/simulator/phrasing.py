"""Plain-language statements of constraints, in the user's own voice.

`describe(c)` turns one typed constraint into a clause a person would say ("nothing
longer than 100 minutes"); `describe_all` joins several into one sentence. Both are
pure and deterministic, so the rule-based user and an LLM simulator (which gets these
clauses in its prompt) state a constraint the same way. `spoken_values(c)` lists the
words `describe` uses for each element of the constraint's value, so a test can check
that a stated constraint really carries its value.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from taurec.tasks.recommendation.constraint import Constraint, Op

#: ISO 639-1 code -> English name of the language.
LANGUAGE_NAMES: dict[str, str] = {
    "af": "Afrikaans", "ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "bs": "Bosnian",
    "ca": "Catalan", "cn": "Cantonese", "cs": "Czech", "cy": "Welsh", "da": "Danish",
    "de": "German", "el": "Greek", "en": "English", "es": "Spanish", "et": "Estonian",
    "eu": "Basque", "fa": "Persian", "fi": "Finnish", "fr": "French", "ga": "Irish",
    "gl": "Galician", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian",
    "hy": "Armenian", "id": "Indonesian", "is": "Icelandic", "it": "Italian", "ja": "Japanese",
    "ka": "Georgian", "kk": "Kazakh", "km": "Khmer", "kn": "Kannada", "ko": "Korean",
    "ku": "Kurdish", "la": "Latin", "lt": "Lithuanian", "lv": "Latvian", "mk": "Macedonian",
    "ml": "Malayalam", "mn": "Mongolian", "mr": "Marathi", "ms": "Malay", "mt": "Maltese",
    "nb": "Norwegian", "ne": "Nepali", "nl": "Dutch", "no": "Norwegian", "pa": "Punjabi",
    "pl": "Polish", "ps": "Pashto", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian",
    "sk": "Slovak", "sl": "Slovenian", "sq": "Albanian", "sr": "Serbian", "sv": "Swedish",
    "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "th": "Thai", "tl": "Tagalog",
    "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "wo": "Wolof",
    "xh": "Xhosa", "yo": "Yoruba", "zh": "Chinese", "zu": "Zulu",
}  # fmt: skip

# genre -> how a person names one ("a comedy", "an animated movie")
_GENRE_NOUNS: dict[str, str] = {
    "animation": "an animated movie",
    "comedy": "a comedy",
    "documentary": "a documentary",
    "drama": "a drama",
    "musical": "a musical",
    "mystery": "a mystery",
    "romance": "a romance",
    "thriller": "a thriller",
    "western": "a Western",
    "tv movie": "a TV movie",
}

_RATING_WORDS = {"NR": "unrated"}


def language_name(code: str) -> str:
    """English name of an ISO 639-1 code; an unknown code is returned as written."""
    return LANGUAGE_NAMES.get(code.strip().lower(), code.strip())


def genre_noun(genre: str) -> str:
    """A genre as a noun phrase with its article: "a comedy", "an action movie"."""
    known = _GENRE_NOUNS.get(genre.strip().casefold())
    if known:
        return known
    word = genre.strip().lower()
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word} movie"


def genre_word(genre: str) -> str:
    """The word(s) that carry the genre in `genre_noun`: "comedy", "animated", "Western"."""
    noun = genre_noun(genre).split(" ", 1)[1]
    return noun.removesuffix(" movie")


def number(v: float) -> str:
    """6.0 -> "6", 6.5 -> "6.5", 1000 -> "1,000"."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return f"{v:,}" if isinstance(v, int) else f"{v:g}"


def _as_date(v: Any, *, upper: bool) -> date:
    if isinstance(v, date):
        return v
    if isinstance(v, int):
        return date(v, 12, 31) if upper else date(v, 1, 1)
    return date.fromisoformat(str(v))


def when(v: Any, *, upper: bool = False) -> str:
    """A date bound as said aloud: a bare year when the bound is a whole year."""
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    d = _as_date(v, upper=upper)
    if (upper and (d.month, d.day) == (12, 31)) or (not upper and (d.month, d.day) == (1, 1)):
        return str(d.year)
    return f"{d:%B} {d.day}, {d.year}"


def rating_code(code: str) -> str:
    return _RATING_WORDS.get(code, code)


def either(words: list[str], conj: str = "or") -> str:
    """["a", "b", "c"] -> "a, b or c"."""
    if len(words) == 1:
        return words[0]
    return f"{', '.join(words[:-1])} {conj} {words[-1]}"


def _values(c: Constraint) -> list[Any]:
    return list(c.value) if isinstance(c.value, list) else [c.value]


def spoken_values(c: Constraint) -> list[str]:
    """How `describe(c)` says each element of the constraint's value."""
    f = c.field
    out: list[str] = []
    for i, v in enumerate(_values(c)):
        if f == "genres":
            out.append(genre_word(str(v)))
        elif f == "original_language":
            out.append(language_name(str(v)))
        elif f == "content_rating":
            out.append(rating_code(str(v)))
        elif f == "release_date":
            upper = c.op is Op.LE or (c.op is Op.BETWEEN and i == 1)
            out.append(when(v, upper=upper))
        elif f in ("runtime", "rating", "vote_count"):
            out.append(number(v))
        elif f == "sponsored":
            out.append("sponsored")
        else:
            out.append(str(v))
    return out


def qualifier(c: Constraint) -> str:
    """The constraint as a phrase that follows a noun: "a comedy | no longer than 100 minutes"."""
    f, op = c.field, c.op
    one = either(spoken_values(c))
    neg = "not " if op in (Op.NE, Op.NOT_CONTAINS) else ""
    if f == "genres":
        nouns = [genre_noun(str(v)) for v in _values(c)]
        return f"that isn't {nouns[0]}" if neg else f"that's also {either(nouns)}"
    if f == "sponsored":
        wants = bool(c.value) == (op is Op.EQ)
        return "that's sponsored" if wants else "that isn't sponsored or promoted"
    if op is Op.BETWEEN:
        lo, hi = spoken_values(c)
        return {
            "runtime": f"between {lo} and {hi} minutes long",
            "rating": f"rated between {lo} and {hi} out of 10 by audiences",
            "vote_count": f"with between {lo} and {hi} audience votes",
            "release_date": f"released between {lo} and {hi}",
        }[f]
    if op in (Op.LE, Op.GE):
        le = op is Op.LE
        return {
            "runtime": f"no longer than {one} minutes" if le else f"at least {one} minutes long",
            "rating": f"rated {'no higher than' if le else 'at least'} {one} out of 10 by audiences",
            "vote_count": f"with {'at most' if le else 'at least'} {one} audience votes",
            "release_date": f"from {one} or {'earlier' if le else 'later'}",
        }[f]
    exactly = "exactly " if op in (Op.EQ, Op.NE) else ""
    return {
        "runtime": f"{neg}{exactly}{one} minutes long",
        "rating": f"{neg}rated {exactly}{one} out of 10 by audiences",
        "vote_count": f"{neg}with {exactly}{one} audience votes",
        "release_date": f"{neg}released on {one}",
        "content_rating": f"{neg}rated {one}",
        "original_language": f"{neg}originally in {one}",
        "director": f"{neg}directed by {one}",
        "title": f"{neg}called {one}",
        "cast": f"with{'out' if neg else ''} {one} in it",
        "streaming_services": f"{neg}on {one}",
        "keywords": f"{neg}about {one}",
    }[f]


def describe(c: Constraint) -> str:
    """One constraint as a clause in the user's voice, lower-case, without a full stop."""
    f, op = c.field, c.op
    one = either(spoken_values(c))
    if f == "genres":
        nouns = [genre_noun(str(v)) for v in _values(c)]
        return f"I don't want {nouns[0]}" if op is Op.NOT_CONTAINS else f"I want {either(nouns)}"
    if f == "runtime" and op is Op.LE:
        return f"nothing longer than {one} minutes"
    if f == "content_rating":
        return f"nothing rated {one}" if op is Op.NE else f"it has to be rated {one}"
    if f == "streaming_services":
        return (
            f"nothing that streams on {one}"
            if op is Op.NOT_CONTAINS
            else f"it needs to be on {one}"
        )
    if f == "cast" and op is Op.NOT_CONTAINS:
        return f"nothing with {one} in it"
    if f == "sponsored" and "isn't" in qualifier(c):
        return "nothing sponsored or promoted"
    if f == "director" and op is Op.NE:
        return qualifier(c)
    return f"something {qualifier(c)}"


def describe_all(constraints: list[Constraint]) -> str:
    """Several constraints as one sentence, capitalised, with a full stop.

    Wanted genres make the head ("I want a romance that's also a comedy"); every other
    constraint follows as a qualifier ("..., no longer than 100 minutes, and rated G").
    """
    wanted = [c for c in constraints if c.field == "genres" and c.op is not Op.NOT_CONTAINS]
    if wanted:
        head, tail = describe(wanted[0]), [qualifier(c) for c in wanted[1:]]
    else:
        head, tail = "I'm looking for a movie", []
    tail += [qualifier(c) for c in constraints if c not in wanted]
    if len(tail) < 3:
        text = " ".join([head, either(tail, "and")] if tail else [head])
    else:
        text = f"{head}, {', '.join(tail[:-1])}, and {tail[-1]}"
    return text[0].upper() + text[1:] + "."


_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
         "nineteen"]  # fmt: skip
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n: int) -> str:
    """0 <= n < 10000 in words: 95 -> "ninety-five", 2005 -> "two thousand five"."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else "")
    if n < 1000:
        rest = f" {number_words(n % 100)}" if n % 100 else ""
        return f"{_ONES[n // 100]} hundred{rest}"
    rest = f" {number_words(n % 1000)}" if n % 1000 else ""
    return f"{number_words(n // 1000)} thousand{rest}"


def value_terms(c: Constraint) -> list[str]:
    """Words by which a person could give away the constraint's value, lower-case.

    Wider than `spoken_values`: digits and words for numbers, years of dates, surnames,
    raw codes. Used to keep free text (soft preferences) from voicing a hidden value.
    """
    terms: list[str] = [s.casefold() for s in spoken_values(c)]
    for v in _values(c):
        if isinstance(v, bool):
            continue
        if isinstance(v, int | float):
            terms.append(number(v))
            whole = int(v)
            if 2 <= whole < 10000:  # "one" is too common a word to mean the number
                terms.append(number_words(whole) + (" and a half" if v - whole == 0.5 else ""))
        elif c.field == "release_date":
            terms.append(str(_as_date(v, upper=False).year))
        else:
            terms.append(str(v).casefold())
            if c.field in ("cast", "director"):
                terms.append(str(v).split()[-1].casefold())
    return sorted(set(terms))
