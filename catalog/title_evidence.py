"""Is a catalog title, found word for word in a text, written there as a title?

`TitleMatcher.find` finds a title's words anywhere, in any case; that reads "the drama
builds slowly" as the film "The Drama" and "fans of David Lynch" as the film "David".
`TitleMatcher.find_written` keeps a match only where a reader would take it for the title:

- never inside a hyphenated word ("Up-to-date" holds no "Up");
- a title *marked* as one always counts: quoted or emphasised ("Up", *Up*, _Up_), followed
  by a year in brackets ("Up (2009)"), or after "film", "movie", "called", ...;
- otherwise a one-word title that is a common first name ("David", "Michael") never counts;
- a title with a word no dictionary lists ("Hamnet", "Zootopia 2") counts in any case;
- a title made only of ordinary words (catalog/title_words.py: "The Drama", "Her", "Cold
  Storage") counts only in title case as the catalog writes it: each of its capitalised
  words capitalised in the text (inner "of", "the", ... excepted; a leading "the" may be
  lower-case before two or more capitalised words), with at least one of those capitals
  not merely starting a sentence ("Noise is everywhere." is no mention), and not run into
  a longer capitalised name ("The Drama Club", "Generation Alpha"); a text all in
  capitals is read as if in title case.
"""

from __future__ import annotations

import re
from typing import Final

from taurec.catalog.title_words import FIRST_NAMES, FUNCTION_WORDS, is_common_title
from taurec.catalog.tokens import WORD, title_tokens


def _split(words: str) -> list[str]:
    return words.split()


_OPENERS: Final = "\"“'‘*_"
_CLOSERS: Final = "\"”'’*_"
_YEAR_AFTER = re.compile(r"\s*\(\s*(?:18|19|20)\d\d\s*\)")
#: A word before a title that marks what follows as a title ("the film Up").
_MARKING_WORDS: Final = frozenset(
    _split(
        "film films movie movies documentary feature picture flick series show title titled "
        "called named"
    )
)
_LIST_MARK = re.compile(r"[ \t]*(?:[-*•>#]+|\d+[.)])")
_ARTICLES: Final = frozenset({"the", "a", "an"})


def starts_sentence(text: str, at: int) -> bool:
    """Whether the word at offset `at` is the first of a sentence, line or list entry."""
    j = at
    while j and text[j - 1] in " \t\"'“‘*_([":
        j -= 1
    if not j or text[j - 1] in ".!?:\n":
        return True
    return _LIST_MARK.fullmatch(text, text.rfind("\n", 0, j) + 1, j) is not None


def _marked(text: str, start: int, end: int, words: list[re.Match[str]], i: int) -> bool:
    before = text[start - 1] if start else ""
    after = text[end : end + 2]
    closed = after[:1] in _CLOSERS or (after[:1] in ".,!?;:" and after[1:2] in _CLOSERS)
    if before and before in _OPENERS and closed:
        return True
    if _YEAR_AFTER.match(text, end):
        return True
    return i > 0 and words[i - 1].group().casefold() in _MARKING_WORDS


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _run_into_a_name(text: str, words: list[re.Match[str]], i: int, n: int) -> bool:
    """Whether a capitalised word continues the title's words, with only a space between."""
    last = words[i + n - 1]
    if i + n < len(words):
        nxt = words[i + n]
        gap = text[last.end() : nxt.start()]
        if gap == " " and _capitalised(nxt.group()) and nxt.group() != "I":
            return True
    if i > 0:
        prev, first = words[i - 1], words[i]
        gap = text[prev.end() : first.start()]
        word = prev.group()
        if (
            gap == " "
            and _capitalised(word)
            and word != "I"
            and not word.endswith("'s")
            and not starts_sentence(text, prev.start())
        ):
            return True
    return False


def _title_cased(text: str, words: list[re.Match[str]], i: int, spelling: list[str]) -> bool:
    """Capitalised as the catalog writes it, with a capital that is not a sentence's first."""
    n = len(spelling)
    written = [words[i + k].group() for k in range(n)]
    lowered_article = (
        spelling[0].casefold() in _ARTICLES
        and written[0].islower()
        and sum(w.casefold() not in FUNCTION_WORDS for w in spelling[1:]) >= 2
    )
    evidence = False
    for k, (title_word, word) in enumerate(zip(spelling, written, strict=True)):
        if not _capitalised(title_word) or (k and title_word.casefold() in FUNCTION_WORDS):
            continue
        if k == 0 and lowered_article:
            continue
        if title_word.isupper() and len(title_word) > 1:
            if not word.isupper():
                return False
        elif not _capitalised(word):
            return False
        if not starts_sentence(text, words[i + k].start()):
            evidence = True
    return evidence


def written_as_title(text: str, words: list[re.Match[str]], i: int, n: int, title: str) -> bool:
    """Whether words[i : i + n] of `text`, which spell catalog title `title` word for word,
    are written there as that title (see the module docstring)."""
    start, end = words[i].start(), words[i + n - 1].end()
    if (start and text[start - 1] == "-") or text[end : end + 1] == "-":
        return False  # part of a hyphenated word
    if _marked(text, start, end, words, i):
        return True
    tokens = title_tokens(title)
    if len(tokens) == 1 and tokens[0] in FIRST_NAMES:
        return False
    if not is_common_title(tokens, lower_case=title == title.lower()):
        return True
    spelling = [m.group() for m in WORD.finditer(title)]
    if len(spelling) != n:  # folding merged or split a word: judge by the text alone
        spelling = [words[i + k].group() for k in range(n)]
    if not _title_cased(text, words, i, spelling):
        return False
    return text.isupper() or not _run_into_a_name(text, words, i, n)
