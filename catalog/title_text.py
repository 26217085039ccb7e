"""The matcher's reading of a text: its words folded, and what lies around a title in it.

`TitleMatcher` (catalog/mentions.py) compares a text's words with catalog keys. Beside
each word's folded form (`fold_text`: case, accents and apostrophes off) it reads:

- possessives, with either apostrophe: "Hamnet's" and "Hamnet’s" end in "Hamnet" (a
  curly apostrophe reads as a straight one everywhere, so "Ocean’s Eleven" is "Ocean's
  Eleven"); a plural's "The Hours' score" needs nothing, the apostrophe is no letter;
- an article put last after a comma ("Usual Suspects, The", "Avventura, L'"), which
  reads as if put first ("The Usual Suspects", "L'Avventura");
- a year in brackets after a title ("Shall We Dance? (1937)", "Toy Story (1995)"),
  which is no word of the title: it picks among the items of that title; so does a year
  said with it, "the 1991 Cape Fear", "Sabrina from 1954", "Sabrina, the 1954 one"; a
  two-digit year after an apostrophe is one too ("Infinity ('96)").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property, lru_cache

from taurec.catalog.title_forms import ARTICLE_TOKENS
from taurec.catalog.title_index import TitleGroup
from taurec.catalog.title_words import FUNCTION_WORDS
from taurec.catalog.tokens import WORD, fold_text

#: A year: four digits, or two after an apostrophe ("'96"; `_year` reads it).
_YEAR = r"((?:18|19|20)\d\d|'\d\d)"
_ANY_YEAR = r"(?:(?:18|19|20)\d\d|'\d\d)"
#: What a year names when said with a title: "the 1937 one", "(1996 version)".
_VERSION = r"(?:film|movie|series|version|one|original|remake|adaptation)"
#: A year in brackets right after a title (its own closing punctuation or marks between),
#: alone, among credits or said in a few words: "(1995)", "(1995 film)", "(1954, Billy
#: Wilder)", "(dir. X, 1954)", "(the 1937 one)", "(released in 1996)".
YEAR_AFTER = re.compile(
    r"[?!.]?[\"”'’*_]*\s*[(\[]\s*(?:[^()\[\]\n]*?[,;]\s*)?"
    r"(?:(?:the|its|released(?:\s+in)?|from|made\s+in|out\s+in|circa|c\.|ca\.)\s+)?"
    rf"{_YEAR}(?:\s+{_VERSION})?\s*(?:[,;][^()\[\]\n]*)?[)\]]",
    re.IGNORECASE,
)
#: Gaps that join the words of one capitalised name ("Avengers: Infinity War").
_NAME_GAPS = frozenset({" ", ": ", " - ", " – ", " — ", "-", " & "})


_PRONOUN_I = re.compile(r"\bI\b")


@lru_cache(maxsize=64)
def no_capitals(text: str) -> bool:
    """Whether the text's only capitals are the pronoun "I" ("i watched it", "I just
    watched paper lanterns"): its case says nothing of a title. Read once per text."""
    rest = _PRONOUN_I.sub("", text)
    return rest == rest.lower()


@lru_cache(maxsize=64)
def all_capitals(text: str) -> bool:
    """Whether the text is written in capitals ("WHAT ABOUT MERCY?"). Read once per text."""
    return text.isupper()


class TextWords:
    """A text's words as the matcher reads them (see the module docstring)."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("’", "'") if "’" in text else text  # same length
        folded_text = fold_text(self.text)
        raw = WORD.findall(folded_text)
        # lower-casing ASCII keeps every word; folding other text may split or merge one,
        # then each word is folded on its own (slow, exact)
        if not self.text.isascii() and len(raw) != len(self.words):
            raw = [fold_text(m.group()) for m in self.words]
        self.folded = [w.replace("'", "") for w in raw] if "'" in folded_text else raw
        #: word index -> the folded word without its possessive "'s"
        self.possessive = {
            k: self.folded[k][:-1] for k, w in enumerate(raw) if w.endswith("'s") and len(w) > 2
        }

    @cached_property
    def words(self) -> list[re.Match[str]]:
        """The text's words (read on first need: most texts name no title)."""
        return list(WORD.finditer(self.text))

    @cached_property
    def articles_last(self) -> frozenset[int]:
        """The indices of articles put last after a comma: "Usual Suspects, The (1995)"
        (not "Alien, The Thing": a capitalised word after the article goes with it)."""
        if "," not in self.text:
            return frozenset()
        found = set()
        words, text = self.words, self.text
        for j in range(1, len(words)):
            if self.folded[j] not in ARTICLE_TOKENS:
                continue
            if text[words[j - 1].end() : words[j].start()].strip() != ",":
                continue
            end = words[j].end()
            if self.folded[j] == "l":
                if text[end : end + 1] != "'":
                    continue
            elif text[end : end + 1].isalnum():
                continue
            nxt = words[j + 1] if j + 1 < len(words) else None
            if nxt is not None and text[end : nxt.start()] == " " and nxt.group()[:1].isupper():
                continue
            found.add(j)
        return frozenset(found)

    def in_brackets(self, k: int) -> bool:
        """Whether word `k` is a year in brackets: no word of a title."""
        word = self.folded[k]
        if len(word) != 4 or not word.isdigit() or word[:2] not in ("18", "19", "20"):
            return False
        return self.text[: self.words[k].start()].rstrip()[-1:] in ("(", "[")


#: A year said in words right after a title (past its own "?" or "!"): "Sabrina from
#: 1954", "Sabrina, from 1954", "Shall We Dance? released in 1996", "Sabrina, the 1954 one".
_FROM_YEAR = re.compile(
    r"[?!]?[\"”'’*_]*(?:,?\s+(?:from|released\s+in|made\s+in|out\s+in)\s+"
    rf"|\s*(?:,|—|–|-)\s*(?i:the)\s+(?={_ANY_YEAR}\s+(?i:{_VERSION})\b))"
    rf"{_YEAR}\b(?!\s*(?:-|–|to\b))"
)
#: A year right before a title: "the 1991 Cape Fear", "1991's Cape Fear".
_YEAR_BEFORE = re.compile(
    rf"(?:\b(?:the|a|an)\s+{_YEAR}|\b((?:18|19|20)\d\d)['’]s)\s+$", re.IGNORECASE
)


def _year(said: str) -> int:
    """A year as written: "1996", or "'96" (a two-digit year below 30 is 20xx, else 19xx:
    fixed, so that a log scores the same in any year)."""
    if said.startswith("'"):
        short = int(said[1:])
        return (2000 if short < 30 else 1900) + short
    return int(said)


def year_after(text: str, end: int) -> tuple[int, int] | None:
    """(year, offset past it) for a year in brackets right after offset `end`, or said
    after it ("from 1954"), or None."""
    found = YEAR_AFTER.match(text, end) or _FROM_YEAR.match(text, end)
    return (_year(found.group(1)), found.end()) if found else None


def year_before(text: str, start: int) -> int | None:
    """The year written right before offset `start` ("the 1991 Cape Fear"), or None."""
    found = _YEAR_BEFORE.search(text, max(0, start - 12), start)
    return _year(found.group(1) or found.group(2)) if found else None


def _name_word(word: str) -> bool:
    return word[:1].isupper() or word[:1].isdigit()


def year_of_a_longer_name(text: str, words: Sequence[re.Match[str]], i: int, n: int) -> bool:
    """Whether words[i : i + n] lie inside a longer capitalised name that a year in brackets
    follows ("Avengers: Infinity War (2018)" for "Infinity"): the year is that name's."""
    k, end = i + n, words[i + n - 1].end()
    while k < len(words) and text[end : words[k].start()] in _NAME_GAPS:
        word = words[k].group()
        inner = word.casefold() in FUNCTION_WORDS and k + 1 < len(words)
        if not (_name_word(word) or (inner and _name_word(words[k + 1].group()))):
            break
        end, k = words[k].end(), k + 1
    if k > i + n:
        return YEAR_AFTER.match(text, end) is not None
    return False


def with_year(groups: Sequence[TitleGroup], year: int) -> list[TitleGroup]:
    """The items of `groups` released in `year`, or failing any, within a year of it (as
    MovieLens titles are mapped: catalog/movielens_mapping.py)."""
    for near in (0, 1):
        kept = []
        for g in groups:
            pairs = [(i, y) for i, y in zip(g.ids, g.years, strict=True) if abs(y - year) <= near]
            if pairs:
                ids, years = zip(*pairs, strict=True)
                kept.append(TitleGroup(g.title, ids, years))
        if kept:
            return kept
    return []
