"""A title's words found in a text, and whether they stand there as that title.

`TitleMatcher` (catalog/mentions.py) finds a catalog key's words in a text as a
`TitleHit`; `stands` reads where it stands, for every method: nowhere inside a
hyphenated word, quoted speech (catalog/title_quotes.py), a longer capitalised name a
year follows ("Avengers: Infinity War (2018)" for "Infinity"), or, for a one-word title
not marked as one, a place in a plot (catalog/title_places.py). `written` then asks
whether it is written as a title (catalog/title_evidence.py), for `find_written` and
`occurrences`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from taurec.catalog.title_evidence import (
    after_marking_word,
    ends_entry,
    in_hyphenated_word,
    joined,
    starts_sentence,
    written_as_title,
)
from taurec.catalog.title_index import Reading
from taurec.catalog.title_places import is_place, names_place
from taurec.catalog.title_quotes import Marks, marks
from taurec.catalog.title_text import TextWords, all_capitals, with_year, year_of_a_longer_name
from taurec.catalog.title_words import FIRST_NAMES
from taurec.catalog.tokens import WORD, title_tokens


@dataclass(slots=True)
class TitleHit:
    """A catalog key's words found in a text, and what stands around them."""

    i: int  # the first word
    n: int  # how many words
    reading: Reading
    spelling: str  # the reading form, its words in the order the text writes them
    start: int
    end: int
    year: int | None
    after: int  # offset past the title and its year
    article_last: bool  # written as catalogs write it: "Usual Suspects, The"
    year_after: bool  # `year` follows the title (else, if any, it comes before)
    marks: Marks = Marks.NONE
    #: a one-word title found in lower case in a text with no capitals ("mercy"): only
    #: `find_written`'s evidence makes it the title; `find` does not hear it
    case_free: bool = False

    @property
    def all_ids(self) -> tuple[str, ...]:
        return tuple(i for g in self.reading.groups for i in g.ids)

    def marked(self, tw: TextWords) -> bool:
        """Quoted or emphasised as a title, given a year, written article last, or after a
        word that marks a title ("the film Up", "My pick: Up")."""
        return (
            self.marks is Marks.TITLE
            or self.year is not None
            or self.article_last
            or after_marking_word(tw.text, tw.words, self.i)
        )


def stands(tw: TextWords, hit: TitleHit) -> bool:
    """Whether `hit` stands where a title can (module docstring); its marks are set."""
    text, words = tw.text, tw.words
    if in_hyphenated_word(text, hit.start, hit.end):
        return False
    shouted = all_capitals(text)  # every word capitalised: capitals join no name
    hit.marks = marks(text, hit.start, hit.end, _exact(text[hit.start : hit.end], hit, shouted))
    if hit.marks is Marks.SPEECH:
        return False
    if not shouted and year_of_a_longer_name(text, words, hit.i, hit.n):
        return False
    if not shouted and hit.year_after and _named_with_the_word_before(text, words, hit):
        return False
    return not (
        hit.n == 1
        and not hit.marked(tw)
        and (is_place(text, hit.start) or names_place(text, hit.after))
    )


def written(tw: TextWords, hits: list[TitleHit]) -> list[bool]:
    """Whether each hit (of those that stand) is written as a title: alone, as a further
    entry of a list a marking word opens ("the films Up, Her and David"), or joined by
    "or", "and", "than", a list's comma, ... to one that is ("Heat or Alien?")."""
    listed = _listed(tw, hits)
    alone = [_written(tw, hit, listed=on) for hit, on in zip(hits, listed, strict=True)]
    return [
        ok or _written(tw, hit, beside_a_title=_beside(tw.text, hits, alone, k))
        for k, (hit, ok) in enumerate(zip(hits, alone, strict=True))
    ]


def _written(
    tw: TextWords, hit: TitleHit, *, beside_a_title: bool = False, listed: bool = False
) -> bool:
    return written_as_title(
        tw.text,
        tw.words,
        hit.i,
        hit.n,
        hit.spelling,
        marked=listed or hit.marked(tw),
        after=hit.after,
        beside_a_title=beside_a_title,
    )


#: What joins two entries of a list: a comma, with or without "and" / "or", or "and" /
#: "or" alone ("Up, Her and David", "Up, Her, or David").
_LIST_JOIN = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)


def _listed(tw: TextWords, hits: list[TitleHit]) -> list[bool]:
    """Whether each hit is a further entry of a list that a marking word or a label opens
    ("the films Up, Her and David", "Recommended: Up, Her, Normal."): the entry before it
    is the list's first or a further one, a comma or "and" / "or" joins them, and its
    entry ends with the title. A first name is an entry only after "and" / "or": after a
    comma alone it may be said to someone ("Try the film Up, David.")."""
    text = tw.text
    out: list[bool] = []
    for k, hit in enumerate(hits):
        prev = hits[k - 1] if k else None
        opened = prev is not None and (out[-1] or after_marking_word(text, tw.words, prev.i))
        join = _LIST_JOIN.fullmatch(text, prev.after, hit.start) if opened and prev else None
        on = join is not None and ends_entry(text, hit.after)
        if on and join is not None and _first_name(hit):
            on = any(w in join.group().casefold().split() for w in ("and", "or"))
        out.append(on)
    return out


def _first_name(hit: TitleHit) -> bool:
    tokens = title_tokens(hit.spelling)
    return len(tokens) == 1 and tokens[0] in FIRST_NAMES


def _beside(text: str, hits: list[TitleHit], alone: list[bool], k: int) -> bool:
    """Whether the next or the previous hit, written as a title, is joined to hit `k`."""
    hit = hits[k]
    nxt = hits[k + 1] if k + 1 < len(hits) and alone[k + 1] else None
    if nxt is not None and joined(text, hit.after, nxt.start, later=False):
        return True
    if k > 0 and alone[k - 1]:
        return joined(text, hits[k - 1].after, hit.start, later=True)
    return False


def _exact(written: str, hit: TitleHit, shouted: bool) -> bool:
    """Whether the text's words spell the title as the catalog does, capitals included."""
    mine = WORD.findall(written.replace("’", "'"))
    theirs = WORD.findall(hit.spelling.replace("’", "'"))
    return mine == ([w.upper() for w in theirs] if shouted else theirs)


def _named_with_the_word_before(text: str, words: list[re.Match[str]], hit: TitleHit) -> bool:
    """Whether a capitalised word runs into the title from the left, inside one name with
    its year: "Dark Toy Story (2020)" (not a possessive, "I", or a sentence's first word),
    or "Mission: Infinity (2020)" when no item of the title has that year (with one,
    "Pick: Toy Story (1995)" is a label and the title)."""
    if hit.i == 0:
        return False
    prev = words[hit.i - 1]
    word, gap = prev.group(), text[prev.end() : hit.start]
    if not (word[:1].isupper() or word.isdigit()) or word == "I" or word.endswith("'s"):
        return False
    if gap == ": ":
        return hit.year is not None and not with_year(hit.reading.groups, hit.year)
    return gap == " " and not starts_sentence(text, prev.start())
