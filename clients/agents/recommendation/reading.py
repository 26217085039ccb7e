"""Reading the simulated user's words with regexes: stated needs, verdicts on pitches.

Tuned to how the rule-based user phrases things (taurec.server.recommendation.simulator.phrasing and
its hint bank), as a person would learn a friend's way of talking; an LLM user words
things freely, so this reader understands less of it. Everything here is pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Final

from taurec.catalog.services import SERVICE_ALIASES
from taurec.clients.agents.recommendation.needs import RATING_ORDER, Needs, day_after, day_before
from taurec.server.recommendation.simulator.phrasing import LANGUAGE_NAMES

# --- stated needs -----------------------------------------------------------------------

_SOFT: Final = re.compile(
    r"(?:nice to have:|if it helps:|ideally\?|not a must, but ideally:)[^\n]*?(?:[.!?](?=\s|$)|$)",
    re.I,
)
_GENRE_NOUN = (
    r"an? (?:(?:animated|tv|[a-z][a-z-]*(?: [a-z][a-z-]*)?) movie|comedy|documentary|drama"
    r"|musical|mystery|romance|thriller|western)"
)
_NOUNS = rf"{_GENRE_NOUN}(?:(?:, | or ){_GENRE_NOUN})*"
_WANT = re.compile(rf"(?<![\w'])i want ({_NOUNS})", re.I)
_ALSO = re.compile(rf"that's also ({_NOUNS})", re.I)
_NOT_GENRE = re.compile(rf"(?:i don't want|that isn't) ({_GENRE_NOUN})", re.I)
_NOUN_RX = re.compile(_GENRE_NOUN, re.I)
_NOUN_GENRE = {"animated": "Animation", "tv": "TV Movie"}

_NUM = r"(\d+(?:\.\d+)?)"
_INT = r"(\d[\d,]*)"
_RUNTIME = [
    (re.compile(rf"(?:nothing|no) longer than {_NUM} minutes", re.I), "max"),
    (re.compile(rf"at least {_NUM} minutes long", re.I), "min"),
    (re.compile(rf"between {_NUM} and {_NUM} minutes long", re.I), "between"),
    (re.compile(rf"(?<!not )exactly {_NUM} minutes long", re.I), "exactly"),
]
_RATING = [
    (re.compile(rf"rated at least {_NUM} out of 10", re.I), "min"),
    (re.compile(rf"rated no higher than {_NUM} out of 10", re.I), "max"),
    (re.compile(rf"rated between {_NUM} and {_NUM} out of 10", re.I), "between"),
    (re.compile(rf"(?<!not )rated exactly {_NUM} out of 10", re.I), "exactly"),
]
_VOTES = [
    (re.compile(rf"with at least {_INT} audience votes", re.I), "min"),
    (re.compile(rf"with at most {_INT} audience votes", re.I), "max"),
    (re.compile(rf"with between {_INT} and {_INT} audience votes", re.I), "between"),
]
_DATE = r"((?:[a-z]+ \d{1,2}, )?\d{4})"
_RELEASE = [
    (re.compile(rf"from {_DATE} or later", re.I), "after"),
    (re.compile(rf"from {_DATE} or earlier", re.I), "before"),
    (re.compile(rf"released between {_DATE} and {_DATE}", re.I), "between"),
]
_CODE = r"(?:nc-17|pg-13|pg|g|r|unrated)"
_CODES = rf"({_CODE}(?:(?:, | or ){_CODE})*)(?![\w-])"
_NOT_RATED = re.compile(rf"(?:nothing|not) rated {_CODES}", re.I)
_RATED = re.compile(rf"(?<!nothing )(?<!not )\brated {_CODES}", re.I)
_LANGUAGE_CODES: dict[str, set[str]] = {}
for _code, _name in LANGUAGE_NAMES.items():
    _LANGUAGE_CODES.setdefault(_name.casefold(), set()).add(_code)
_LANG = "|".join(sorted(map(re.escape, _LANGUAGE_CODES), key=len, reverse=True))
_LANGS = rf"((?:{_LANG})(?:(?:, | or )(?:{_LANG}))*)"
_ORIGINALLY = re.compile(rf"(not )?originally in {_LANGS}", re.I)
_NAME = r"([^,.]+?)"
_END = r"(?=,| and |\.(?:\s|$)|[!?]|$)"
_DIRECTED = re.compile(rf"(not )?directed by {_NAME}{_END}", re.I)
_CAST = re.compile(r"(nothing )?\bwith\s((?:(?!\bwith\s)[^,.])+?) in it", re.I)
_CAST_WITHOUT = re.compile(r"\bwithout\s((?:(?!\bwith\s)[^,.])+?) in it", re.I)
_ABOUT = re.compile(rf"(?:something|movie|film|,) (not )?about (?!it\b){_NAME}{_END}", re.I)
_SERVICE_NAMES = sorted(
    {n.casefold() for canon, aliases in SERVICE_ALIASES.items() for n in (canon, *aliases)},
    key=len,
    reverse=True,
)
_SERVICE = "|".join(re.escape(n) for n in _SERVICE_NAMES)
_SERVICES = rf"((?:{_SERVICE})(?:(?:, | or | and )(?:{_SERVICE}))*)(?![\w+])"
_NOT_ON = re.compile(rf"(?:nothing that streams|not) on {_SERVICES}", re.I)
_ON = re.compile(rf"(?<!streams )(?<!not )\bon {_SERVICES}", re.I)
_NEEDS_ON = re.compile(r"it needs to be on ([^.!?]+)", re.I)
_HAVE = re.compile(r"(?:i've got|i have|i'm subscribed to) ([^.!?]+)", re.I)
_LIST_SPLIT = re.compile(r",\s*|\s+or\s+|\s+and\s+", re.I)

#: What a reply shows the user was asked about but keeps to themselves.
VAGUE: Final = re.compile(r"i'll know it when i see it", re.I)


def _genre(noun: str) -> str:
    words = noun.split(" ", 1)[1].removesuffix(" movie")
    return _NOUN_GENRE.get(words.casefold(), words.title())


def _genres(nouns: str) -> set[str]:
    return {_genre(m.group()) for m in _NOUN_RX.finditer(nouns)}


def _date(text: str, *, upper: bool) -> date:
    if text.isdigit():
        return date(int(text), 12, 31) if upper else date(int(text), 1, 1)
    month, day, year = re.split(r"[ ,]+", text.strip())
    return datetime.strptime(f"{month} {day} {year}", "%B %d %Y").date()


def _codes(text: str) -> set[str]:
    return {"NR" if c.casefold() == "unrated" else c.upper() for c in re.split(r", | or ", text)}


def _names(text: str) -> set[str]:
    return {n.strip() for n in _LIST_SPLIT.split(text) if n.strip()}


def without_soft_preferences(text: str) -> str:
    """The reply minus soft preferences ("Ideally? ..."): wishes, not requirements."""
    return _SOFT.sub(" ", text)


def read_needs(text: str, needs: Needs) -> set[str]:
    """Add every requirement stated in `text` to `needs`; the attributes it touched."""
    text = without_soft_preferences(text)
    touched: set[str] = set()
    for m in _WANT.finditer(text):
        needs.add_genres(_genres(m.group(1)))
        touched.add("genre")
    for m in _ALSO.finditer(text):
        needs.add_genres(_genres(m.group(1)))
    for m in _NOT_GENRE.finditer(text):
        needs.genres_none |= {g.casefold() for g in _genres(m.group(1))}
        touched.add("genre")
    touched |= _read_numbers(text, needs)
    for m in _NOT_RATED.finditer(text):
        needs.ratings_none |= _codes(m.group(1))
        touched.add("maturity")
    for m in _RATED.finditer(text):
        needs.allow_ratings(_codes(m.group(1)))
        touched.add("maturity")
    for m in _ORIGINALLY.finditer(text):
        codes = {
            c
            for name in re.split(r", | or ", m.group(2))
            for c in _LANGUAGE_CODES.get(name.casefold(), ())
        }
        if m.group(1):
            needs.languages_none |= codes
        else:
            needs.allow_languages(codes)
        touched.add("language")
    touched |= _read_people(text, needs)
    touched |= _read_services(text, needs)
    for m in _ABOUT.finditer(text):
        (needs.keywords_none if m.group(1) else needs.keywords).add(m.group(2).strip())
    if re.search(r"nothing sponsored or promoted", text, re.I):
        needs.sponsored = False
    elif re.search(r"that's sponsored", text, re.I):
        needs.sponsored = True
    return touched


def _read_numbers(text: str, needs: Needs) -> set[str]:
    touched = set()
    for rx, kind in _RUNTIME:
        for m in rx.finditer(text):
            lo, hi = (m.group(1), m.group(2)) if kind == "between" else (m.group(1), m.group(1))
            if kind in ("min", "between", "exactly"):
                needs.floor_runtime(int(float(lo)))
            if kind in ("max", "between", "exactly"):
                needs.cap_runtime(int(float(hi)))
            touched.add("length")
    for rx, kind in _RATING:
        for m in rx.finditer(text):
            lo, hi = (m.group(1), m.group(2)) if kind == "between" else (m.group(1), m.group(1))
            if kind in ("min", "between", "exactly"):
                needs.floor_rating(float(lo))
            if kind in ("max", "between", "exactly"):
                needs.cap_rating(float(hi))
            touched.add("quality")
    for rx, kind in _VOTES:
        for m in rx.finditer(text):
            lo = int(m.group(1).replace(",", ""))
            hi = int((m.group(2) if kind == "between" else m.group(1)).replace(",", ""))
            if kind in ("min", "between"):
                needs.min_votes = max(needs.min_votes or 0, lo)
            if kind in ("max", "between"):
                needs.max_votes = hi if needs.max_votes is None else min(needs.max_votes, hi)
            touched.add("quality")
    for rx, kind in _RELEASE:
        for m in rx.finditer(text):
            if kind in ("after", "between"):
                needs.after(_date(m.group(1), upper=False))
            if kind == "before":
                needs.before(_date(m.group(1), upper=True))
            if kind == "between":
                needs.before(_date(m.group(2), upper=True))
            touched.add("recency")
    return touched


def _read_people(text: str, needs: Needs) -> set[str]:
    touched = set()
    for m in _DIRECTED.finditer(text):
        names = {n.strip() for n in re.split(r" or ", m.group(2)) if n.strip()}
        if m.group(1):
            needs.directors_none |= names
        else:
            needs.directors = names if not needs.directors else needs.directors & names or names
        touched.add("people")
    for m in _CAST.finditer(text):
        name = m.group(2).strip()
        if not name or name.casefold().startswith(("at least", "at most", "between")):
            continue
        (needs.cast_none if m.group(1) else needs.cast).add(name)
        touched.add("people")
    for m in _CAST_WITHOUT.finditer(text):
        needs.cast_none.add(m.group(1).strip())
        touched.add("people")
    return touched


def _read_services(text: str, needs: Needs) -> set[str]:
    touched = set()
    for m in _NOT_ON.finditer(text):
        needs.services_none |= _names(m.group(1))
        touched.add("services")
    for m in _NEEDS_ON.finditer(text):
        needs.services_any = _names(m.group(1))
        touched.add("services")
    if "services" not in touched:
        for m in _ON.finditer(text):
            needs.services_any = _names(m.group(1))
            touched.add("services")
    for m in _HAVE.finditer(text):
        needs.user_services = _names(m.group(1))
        touched.add("services")
    return touched


# --- verdicts on a pitch -------------------------------------------------------------------

_ACCEPT: Final = re.compile(
    r"sounds perfect|exactly what i'm after|that works for me|sounds great"
    r"|happy with the one i said yes to|i'm set on that one|let's go with what i picked",
    re.I,
)
_SEEN: Final = re.compile(
    r"already seen|watched that one already|seen it already|seen that one|seen before", re.I
)
_REPEATED: Final = re.compile(
    r"^\W*(?:like i said|as i mentioned|same as before|as i said|again,|still not sure"
    r"|no, that's everything|nope, nothing more)",
    re.I,
)
_MOODS: Final = {
    ("genres", "unwanted:horror"): ("too intense", "nightmares", "sleep tonight"),
    ("genres", "unwanted:romance"): ("too mushy", "lovey-dovey", "too much kissing"),
    ("genres", "unwanted:animation"): ("that style of movie", "real people on screen", "too drawn"),
}
# How people hint at what is wrong without saying it: cue words per (field, direction),
# where the direction says which way the title misses ("high": too much of it). This is
# the agent's own reading of ordinary English, not the simulator's phrase list, so a
# differently worded user degrades it as it would any agent.
_CUES: Final[dict[tuple[str, str], str]] = {
    ("runtime", "high"): r"time commitment|stamina|too late|too long|long one|something shorter",
    ("runtime", "low"): r"\bslight\b|substantial|sink into|settled? in|too short|something longer",
    (
        "rating",
        "low",
    ): r"mixed things|supposed to be any good|reputation|bad reviews|poorly reviewed",
    ("rating", "high"): r"prestigious|raves?\b|fussed|homework",
    ("vote_count", "low"): r"never heard of|obscure|nobody i know|more people have seen",
    ("vote_count", "high"): r"mainstream|everybody's seen|hidden gem|less obvious",
    ("release_date", "low"): r"\bdated\b|fresher|showing its age|old-fashioned|something newer",
    ("release_date", "high"): r"too new|classic feel|test of time|too modern",
    ("content_rating", "high"): r"too much for|suitable for|a bit much|too mature|too adult",
    ("content_rating", "low"): r"\btame\b|little ones|more (?:of an )?edge|kiddie",
    ("content_rating", "off"): r"appropriate for|right for us|our situation",
    ("original_language", "missing"): r"listening to|sound different|had in mind to hear",
    ("original_language", "unwanted"): r"hear something different|familiar to my ears",
    (
        "streaming_services",
        "missing",
    ): r"can(?:'t|not)? get that|watch that one at home|anywhere i can",
    (
        "streaming_services",
        "unwanted",
    ): r"where that one's showing|where that one lives|somewhere i'd rather not",
    ("cast", "missing"): r"particular face|who i was hoping to see|someone in mind to watch",
    ("cast", "unwanted"): r"not a fan of someone|somebody in that one|who's in that",
    ("director", "missing"): r"filmmaker i had in mind|behind the camera in mind|made by who",
    ("director", "unwanted"): r"whoever made|whoever's behind|someone else behind the camera",
    ("genres", "missing"): r"kind of story|the vibe|different flavour",
    ("genres", "unwanted"): r"cup of tea|that sort of thing|wrong flavour",
    ("keywords", "missing"): r"what i had in mind|story i was picturing|something else going on",
    ("keywords", "unwanted"): r"premise puts me off|kind of plot|storyline",
    ("sponsored", "unwanted"): r"pushed at me|paying to show|an advert",
}
_HINTS: Final = [
    *((re.compile(rx, re.I), key) for key, rx in _CUES.items()),
    *((re.compile(re.escape(t), re.I), key) for key, texts in _MOODS.items() for t in texts),
]


@dataclass(frozen=True)
class Verdict:
    """What the user made of a pitched title."""

    accepted: bool
    seen: bool
    hints: tuple[tuple[str, str], ...]  # (field, direction) of each hint recognised
    repeated: bool  # the reply only repeats what the user said before


def read_verdict(reply: str) -> Verdict:
    low = reply.casefold()
    hints = tuple(dict.fromkeys(key for rx, key in _HINTS if rx.search(low)))
    return Verdict(
        accepted=bool(_ACCEPT.search(reply)),
        seen=bool(_SEEN.search(reply)),
        hints=hints,
        repeated=bool(_REPEATED.search(reply)),
    )


def is_repeat(reply: str) -> bool:
    """The reply tells nothing new (the rule-based user counts such turns against its
    patience)."""
    return bool(_REPEATED.search(reply))


def learn(needs: Needs, hint: tuple[str, str], item: dict[str, Any]) -> None:
    """Tighten `needs` from a hint about a rejected (full) item: the hint says which way
    the item missed an unstated requirement, never the requirement itself."""
    f, way = hint
    if f == "runtime":
        runtime = int(item["runtime"])
        needs.cap_runtime(runtime - 1) if way == "high" else needs.floor_runtime(runtime + 1)
    elif f == "rating":
        rating = float(item["rating"])
        needs.floor_rating(rating + 0.01) if way == "low" else needs.cap_rating(rating - 0.01)
    elif f == "vote_count":
        votes = int(item["vote_count"])
        if way == "low":
            needs.min_votes = max(needs.min_votes or 0, votes + 1)
        else:
            needs.max_votes = (
                votes - 1 if needs.max_votes is None else min(needs.max_votes, votes - 1)
            )
    elif f == "release_date":
        released = date.fromisoformat(str(item["release_date"]))
        needs.after(day_after(released)) if way == "low" else needs.before(day_before(released))
    elif f == "content_rating":
        rank = RATING_ORDER.index(item["content_rating"])
        if way == "high":
            needs.allow_ratings(set(RATING_ORDER[:rank]))
        elif way == "low":
            needs.allow_ratings(set(RATING_ORDER[rank + 1 :]))
        else:
            needs.ratings_none.add(item["content_rating"])
    elif f == "original_language":
        needs.languages_none.add(str(item["original_language"]).casefold())
    elif f == "streaming_services":
        if way == "missing":
            needs.services_other_than.append(set(item["streaming_services"]))
        else:
            needs.services_none |= set(item["streaming_services"])
    elif f == "director" and item.get("director"):
        needs.directors_none.add(item["director"])
    elif f == "cast" and way == "unwanted":
        needs.cast_none |= set(item.get("cast", []))
    elif f == "genres":
        genres = {g.casefold() for g in item.get("genres", [])}
        if way == "missing":
            needs.genres_missing_from.append(genres)
        elif way.startswith("unwanted:"):
            needs.genres_none.add(way.split(":", 1)[1])
        else:
            wanted = {g for s in needs.genre_sets for g in s}
            needs.genres_none |= genres - wanted
    elif f == "sponsored":
        needs.sponsored = False
