"""Reading the agent's message: what it asks about, which titles it names, what it is.

Rule-based, in the UserSimCRS manner: keyword and regex patterns with synonyms per
attribute, applied sentence by sentence. An attribute counts as *asked* only in a
question sentence that names no title, so "How about Night Train? It's 95 minutes."
is a pitch, not a question about length. Titles are found exactly with the catalog's
`TitleMatcher`, then fuzzily (rapidfuzz) in capitalised or quoted spans, with a
conservative threshold, to catch near-miss spellings ("The Silent Harbor").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from enum import StrEnum

from taurec.catalog.item import Item
from taurec.catalog.loose_keys import LooseKeys
from taurec.catalog.mentions import TitleMatcher, distinct, title_tokens
from taurec.catalog.records import ItemRecords
from taurec.catalog.services import SERVICE_ALIASES
from taurec.catalog.title_index import FUZZY_MIN_KEY, SavedTitles, loose_title_key
from taurec.server.recommendation.simulator.phrasing import LANGUAGE_NAMES


class Attribute(StrEnum):
    """What a user can be asked about (several item fields may share one)."""

    GENRE = "genre"
    LENGTH = "length"
    MATURITY = "maturity"
    QUALITY = "quality"
    SERVICES = "services"
    RECENCY = "recency"
    PEOPLE = "people"
    LANGUAGE = "language"
    HISTORY = "history"
    OTHER = "other"  # "anything else?": open questions that name no attribute


#: Item field -> the attribute a question about it names.
FIELD_ATTRIBUTE: dict[str, Attribute] = {
    "genres": Attribute.GENRE,
    "keywords": Attribute.GENRE,
    "runtime": Attribute.LENGTH,
    "content_rating": Attribute.MATURITY,
    "rating": Attribute.QUALITY,
    "vote_count": Attribute.QUALITY,
    "streaming_services": Attribute.SERVICES,
    "release_date": Attribute.RECENCY,
    "director": Attribute.PEOPLE,
    "cast": Attribute.PEOPLE,
    "original_language": Attribute.LANGUAGE,
    "title": Attribute.OTHER,
    "sponsored": Attribute.OTHER,
}

_GENRE_WORDS = (
    r"genres?|(?:kind|sort|type|style)s? of (?:movie|film|story|stories|thing)s?|mood|vibe|tone"
    r"|themes?|topics?|comed(?:y|ies)|comedic|funny|laughs?|dramas?|dramatic|thrillers?|horror"
    r"|scary|romance|romantic|rom-?coms?|action|sci-?fi|science fiction|documentar(?:y|ies)"
    r"|animated|animation|cartoons?|westerns?|myster(?:y|ies)|crime|fantasy|adventures?|war"
    r"|historical|(?<!watch )(?<!viewing )history|musicals?|music|family (?:movie|film)s?"
    r"|feel-?good|light-?hearted|serious|dark|genre"
)
_SERVICE_WORDS = "|".join(
    re.escape(name.casefold())
    for canonical, aliases in SERVICE_ALIASES.items()
    for name in (canonical, *aliases)
    if name.casefold() not in {"max", "criterion", "prime", "epix"}  # everyday words
)
_LANGUAGE_WORDS = "|".join(sorted({n.casefold() for n in LANGUAGE_NAMES.values()}))

_PATTERNS: dict[Attribute, str] = {
    Attribute.GENRE: _GENRE_WORDS,
    Attribute.LENGTH: (
        r"length|long|longer|short|shorter|runtime|run ?time|running time|minutes?|mins?"
        r"|hours?|duration|how much time|time commitment|quick"
    ),
    Attribute.MATURITY: (
        r"(?:content|age|maturity|mpaa?) ratings?|maturity|mature|rated (?:g|pg|pg-13|r|nc-17)\b"
        r"|\b(?:g|pg|pg-13|r|nc-17)-rated|\bpg(?:-13)?\b|nc-17|age[- ]appropriate|appropriate"
        r"|suitab\w*|kids?|children|child|family[- ]friendly|whole family|parental|violen(?:ce|t)"
        r"|gore|gory|nudity|sex|sexual|swearing|profanity|how old are you|your age|restricted"
        r"|adults?|little ones|year-old"
    ),
    Attribute.QUALITY: (
        r"(?<!content )(?<!age )(?<!maturity )(?<!mpa )(?<!mpaa )\bratings?"
        r"|(?:highly|well|best|top|critically)[- ]rated|rated (?:highly|well|at least|above|over)"
        r"|reviews?|reviewed|critics?|critically|acclaim(?:ed)?|scores?|\d stars|star rating"
        r"|votes?|popular|popularity|well[- ]known|heard of|hidden gem|quality|imdb"
        r"|out of (?:10|ten)|crowd[- ]pleaser|obscure|masterpiece|how good"
    ),
    Attribute.SERVICES: (
        rf"streaming|stream|services?|subscriptions?|subscribed?|platforms?|apps?"
        rf"|where (?:do|can|will|would) you watch|available on|access to|{_SERVICE_WORDS}"
    ),
    Attribute.RECENCY: (
        r"release|released|years?|new|newer|newest|recent(?!ly)|(?<!how )old|older|oldest|classics?"
        r"|vintage|modern|decades?|eras?|(?:19|20)\d0s|'\d0s|\b\d0s|came out|latest"
        r"|contemporary|dated"
    ),
    Attribute.PEOPLE: (
        r"directors?|directed|filmmakers?|actors?|actress(?:es)?|cast|starring|stars? in"
        r"|who(?:'s|\s+\w+){0,3} in it|performers?|performances?|acting"
    ),
    Attribute.LANGUAGE: (
        rf"languages?|subtitles?|subtitled|dubbed|dubbing|dub|foreign|international"
        rf"|world cinema|{_LANGUAGE_WORDS}"
    ),
    Attribute.HISTORY: (
        r"(?:have|did) you (?:already |ever )?(?:seen|watched|see|watch)|already (?:seen|watched)"
        r"|seen it|watch(?:ing)? history|viewing history|watched (?:recently|lately|before)"
        r"|recently watched|rewatch|re-watch|favou?rite (?:movie|film)s?"
        r"|(?:movies?|films?) you(?:'ve| have)? (?:liked|loved|enjoyed|seen|watched)"
    ),
    Attribute.OTHER: (
        r"anything else|something else|any other|what else|other (?:requirements|preferences"
        r"|needs|criteria|constraints)|requirements?|preferences?|criteria|must[- ]haves?"
        r"|deal[- ]?breakers?|is that all|else i should know|anything i should know"
        r"|tell me more|what (?:are you|do you)(?: \w+)? (?:looking for|want|like|feel like)"
    ),
}
_COMPILED = {a: re.compile(rf"(?<![\w-])(?:{p})(?![\w])", re.I) for a, p in _PATTERNS.items()}
# "an 8-year-old" says who is watching, not when the film came out
_AGE_PHRASE = re.compile(r"\b[\w]+-years?-olds?\b", re.I)
_HOW_OLD = re.compile(r"how old (?!are you)", re.I)

_QUESTION_START = re.compile(
    r"^\W*(?:what|which|how|who|when|where|why|do|does|did|would|could|can|are|is|any|have"
    r"|has|should|will|shall|may|might|tell me|let me know|please (?:tell|share|let)"
    r"|describe|i(?:'d| would) (?:like|love) to know|i'm wondering|i wonder|wondering)\b",
    re.I,
)
_PITCH_CUE = re.compile(
    r"\b(?:how about|what about|recommend\w*|suggest\w*|try|consider|check out|would you like"
    r"|do you want|might (?:enjoy|like)|you(?:'d| would| might) (?:enjoy|like|love)|i found"
    r"|there(?:'s| is)|fits?|options?|pick|go with|interested in|sounds? (?:good|like)"
    r"|my top|i'd go)\b",
    re.I,
)
_SEEN_CUE = re.compile(r"\b(?:seen|watched|see|saw)\b", re.I)
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening)|welcome)\b"
    r"|how (?:can|may) i help|what can i do for you",
    re.I,
)
_MOVIE_TALK = re.compile(
    r"\b(?:movies?|films?|watch\w*|recommend\w*|suggest\w*|search\w*|look\w*|find\w*"
    r"|catalog\w*|options?|picks?|titles?|shows?|cinema|tonight|something|check\w*"
    r"|moment|sec|second|hold on|great|thanks?|thank you|ok(?:ay)?|sure|got it|sounds?"
    r"|perfect|noted|understood|right|cool|help|assist\w*)\b",
    re.I,
)
# a full stop inside "6.5" or "Mr.Smith" does not end a sentence
_SENTENCE = re.compile(r"(?:[^.?!\n]|[.?!](?![\s\"”]|$))+[.?!\"”]*")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# spans worth a fuzzy look: quoted or emphasised text, or runs of capitalised words
_QUOTED = re.compile(r"[\"“”*_]{1,2}([^\"“”*_\n]{3,80})[\"“”*_]{1,2}")
_CAP_RUN = re.compile(
    r"(?:[A-Z0-9][\w'’:-]*)(?:\s+(?:(?:of|the|a|an|and|in|on|at|to|for|de|la|le)\s+)*"
    r"[A-Z0-9][\w'’:-]*)*"
)


@dataclass(frozen=True)
class TitleRef:
    """A catalog title named in a message: several ids when two items share the title and
    no year told them apart, none when the year the message gave matches none of them."""

    title: str
    item_ids: tuple[str, ...]
    start: int  # character offset in the message
    fuzzy: bool = False


@dataclass(frozen=True)
class AgentMessage:
    """What the rule-based user understood of one agent message."""

    text: str
    empty: bool
    asked: frozenset[Attribute]  # attributes asked about in question sentences
    mentioned: frozenset[Attribute]  # attributes mentioned anywhere
    is_question: bool
    titles: tuple[TitleRef, ...]
    pitches: bool  # names a title with a pitch cue, or in a question
    asks_if_seen: bool  # "have you seen <title>?"
    greeting: bool
    on_topic: bool


def attributes_in(text: str) -> set[Attribute]:
    """Attributes a piece of text talks about (also used to file soft preferences)."""
    text = _HOW_OLD.sub("how recent ", _AGE_PHRASE.sub(" child ", text))
    return {a for a, rx in _COMPILED.items() if rx.search(text)}


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?") or bool(_QUESTION_START.search(sentence))


_fold = loose_title_key


_READINGS_KEPT = 64


class MessageReader:
    """NLU over one catalog. Build once per catalog; `read` is pure.

    Over a catalog folder's items it opens the folder's saved title index instead of
    reading every item (`taurec.catalog.title_index`); the answers are the same.
    """

    def __init__(self, items: Sequence[Item], *, fuzzy_cutoff: float = 90.0) -> None:
        self._read: dict[str, AgentMessage] = {}
        self._loose_keys: LooseKeys | None = None  # built on the first near-miss lookup
        self._exact = TitleMatcher(items)
        self._cutoff = fuzzy_cutoff
        saved = items.saved_titles if isinstance(items, ItemRecords) else None
        if saved is not None:
            self._saved: SavedTitles | None = saved
            self._fuzzy_entry: Callable[[int], tuple[str, tuple[str, ...]]] = saved.fuzzy.entry
            self._max_words = saved.max_words
            self._people: Container[str] = saved.people
            return
        self._saved = None
        keys: dict[str, list[str]] = {}
        titles: dict[str, str] = {}
        for item in items:
            key = _fold(item.title)
            if len(key) >= FUZZY_MIN_KEY:  # short titles match too much by accident
                keys.setdefault(key, []).append(item.id)
                titles.setdefault(key, item.title)
        self._fuzzy_list = list(keys)
        entries = [(titles[k], tuple(ids)) for k, ids in keys.items()]
        self._fuzzy_entry = entries.__getitem__
        # sub-runs longer than any title (plus a stray word) cannot match one
        self._max_words = max((len(t.split()) for t in titles.values()), default=0) + 1
        people = {p for it in items for p in (*it.cast, it.director or "") if p}
        self._people = frozenset(" ".join(title_tokens(p)) for p in people)

    @property
    def _loose(self) -> LooseKeys:
        """The loose keys compared with a span, in the order items first name them."""
        if self._loose_keys is None:
            keys = self._fuzzy_list if self._saved is None else self._saved.fuzzy_keys
            self._loose_keys = LooseKeys(keys)
        return self._loose_keys

    def titles(self, text: str) -> list[TitleRef]:
        """Catalog titles named in `text`, exact matches first, then near misses."""
        every = self._exact.occurrences(text, written=False)
        found = [
            self._longer(TitleRef(m.title, m.item_ids, m.start), text) for m in distinct(every)
        ]
        rest = text
        for m in every:  # blank out exact titles (keeping offsets) so parts don't match again
            rest = rest[: m.start] + " " * (m.end - m.start) + rest[m.end :]
        for ref in found:  # and their other spellings, as the catalog writes them
            words = r"\W+".join(map(re.escape, ref.title.split()))
            rest = re.sub(words, lambda m: " " * len(m.group()), rest, flags=re.I)
            if ref.fuzzy:  # a misspelt longer title: blank its whole capitalised run
                run = _CAP_RUN.match(rest, ref.start) or _CAP_RUN.match(text, ref.start)
                end = run.end() if run else ref.start
                rest = rest[: ref.start] + " " * (end - ref.start) + rest[end:]
        seen = {ref.item_ids for ref in found}
        for span, start in self._spans(rest):
            best = self._closest(span)
            if best is not None and best.item_ids not in seen:
                seen.add(best.item_ids)
                found.append(TitleRef(best.title, best.item_ids, start, fuzzy=True))
        return found

    def _closest(self, span: str) -> TitleRef | None:
        key = _fold(span)
        if len(key) < 6 or not len(self._loose):
            return None
        best = self._loose.closest(key, self._cutoff)
        if best is None:
            return None
        title, ids = self._fuzzy_entry(best[0])
        return TitleRef(title, ids, 0, fuzzy=True)

    def _longer(self, ref: TitleRef, text: str) -> TitleRef:
        """A misspelt long title can contain a shorter exact one ("The Sunless Colossus of
        Donelmoor"): prefer the longer title when the whole capitalised run is close to it."""
        run = _CAP_RUN.match(text, ref.start)
        if run is None or len(_fold(run.group())) <= len(_fold(ref.title)) + 2:
            return ref
        best = self._closest(run.group())
        if best is None or len(_fold(best.title)) <= len(_fold(ref.title)):
            return ref
        return TitleRef(best.title, best.item_ids, ref.start, fuzzy=True)

    def _spans(self, text: str) -> list[tuple[str, int]]:
        spans = [(m.group(1), m.start(1)) for m in _QUOTED.finditer(text)]
        for m in _CAP_RUN.finditer(text):
            words = list(re.finditer(r"\S+", m.group()))
            # every sub-run, so "Maybe Silent Harbor" still yields "Silent Harbor"
            for i in range(len(words)):
                for j in range(i + 1, min(len(words), i + self._max_words) + 1):
                    sub = m.group()[words[i].start() : words[j - 1].end()]
                    spans.append((sub, m.start() + words[i].start()))
        return spans

    def people_in(self, text: str) -> bool:
        toks = title_tokens(text)
        return any(
            " ".join(toks[i : i + n]) in self._people
            for n in (2, 3)
            for i in range(len(toks) - n + 1)
        )

    def read(self, text: str) -> AgentMessage:
        """What `text` says (the same message is read by the user and, for the log, by the
        agent NLU: the last few readings are kept, since fuzzy title lookups cost)."""
        known = self._read.get(text)
        if known is None:
            if len(self._read) >= _READINGS_KEPT:
                self._read.clear()
            known = self._read[text] = self._read_anew(text)
        return known

    def _read_anew(self, text: str) -> AgentMessage:
        stripped = text.strip()
        if not _WORD.search(stripped):
            empty = frozenset[Attribute]()
            return AgentMessage(text, True, empty, empty, False, (), False, False, False, False)
        titles = tuple(self.titles(stripped))
        asked: set[Attribute] = set()
        mentioned: set[Attribute] = set()
        is_question = pitches = asks_if_seen = False
        for m in _SENTENCE.finditer(stripped):
            sentence = m.group()
            attrs = attributes_in(sentence)
            if self.people_in(sentence):
                attrs.add(Attribute.PEOPLE)
            mentioned |= attrs
            question = _is_question(sentence)
            is_question |= question
            if any(m.start() <= t.start < m.end() for t in titles):
                pitches |= question or bool(_PITCH_CUE.search(sentence))
                asks_if_seen |= question and bool(_SEEN_CUE.search(sentence))
            elif question:
                asked |= attrs
        if len(asked) > 1:
            asked.discard(Attribute.OTHER)  # "any other preferences on length?" is about length
        return AgentMessage(
            text=text,
            empty=False,
            asked=frozenset(asked),
            mentioned=frozenset(mentioned),
            is_question=is_question,
            titles=titles,
            pitches=pitches or (bool(titles) and bool(_PITCH_CUE.search(stripped))),
            asks_if_seen=asks_if_seen,
            greeting=bool(_GREETING.search(stripped)),
            on_topic=bool(titles or mentioned or _MOVIE_TALK.search(stripped)),
        )
