"""Quotation marks and emphasis around a title found in text: a mark, or quoted speech?

A title set off by marks is written as a title: quotes (straight or curly, double or
single: "Up", “Up”, 'Up', ‘Up’) or emphasis (*Up*, **Up**, _Up_), with any punctuation
inside or right after the marks ("Shall We Dance?", *Up*!, "Up,") and a year in brackets
inside them or after ("Toy Story (1995)").

Quotation marks also enclose speech, and a title inside speech is no title:

- a quotation that holds more than the title ("never look back, never regret" for the
  title "Never Look Back") is speech, or another, longer title: the title is not read;
- a quotation introduced by a verb or noun of saying (`SAYING`: says, asks, tells, the
  line, the tagline, ...) within a few words before it, or followed by one ("...," she
  says), is speech even when it holds nothing but the title's words, unless it spells the
  title exactly as the catalog does, capitals included: `As she says, "never look back"`
  quotes her; `She calls it "Never Look Back"` names the film.

Emphasis around more than the title marks nothing and hides nothing (agents embolden
whole phrases: "**I'd start with Hamnet**").
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Final, NamedTuple


def _split(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: Words that introduce (or follow) quoted speech rather than a quoted title.
SAYING: Final = _split(
    "say says said saying ask asks asked asking tell tells told telling reply replies "
    "replied replying answer answers answered answering whisper whispers whispered "
    "whispering shout shouts shouted shouting yell yells yelled yelling scream screams "
    "screamed screaming cry cries cried crying add adds added adding insist insists "
    "insisted insisting declare declares declared declaring announce announces announced "
    "announcing mutter mutters muttered muttering murmur murmurs murmured murmuring warn "
    "warns warned warning promise promises promised promising repeat repeats repeated "
    "repeating quip quips quipped quipping joke jokes joked joking explain explains "
    "explained explaining sigh sighs sighed sighing snap snaps snapped snapping sing sings "
    "sang singing remark remarks remarked remarking exclaim exclaims exclaimed exclaiming "
    "chant chants chanted chanting quote quotes quoted quoting line lines tagline taglines "
    "slogan motto mantra catchphrase phrase words refrain credo"
)
_SAYING_REACH = 4  # words before the opening mark, or after the closing one

_EMPHASIS: Final = "*_"
_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_YEAR = re.compile(r"\s*[(\[]\s*(?:18|19|20)\d\d\s*[)\]]")
_SENTENCE_END = re.compile(r"[.!?]\s|\n")


class Marks(Enum):
    """How marks stand around a title's words."""

    NONE = "none"  # no quotation around it, and no emphasis right around it
    TITLE = "title"  # quoted or emphasised as a title
    SPEECH = "speech"  # inside a quotation that is speech (or holds more than the title)


class _Quote(NamedTuple):
    open: int  # offset of the opening mark
    close: int  # offset of the closing mark


#: A straight single quote that closes a quotation (not an apostrophe: "I'd", "don't").
_CLOSES_SINGLE = re.compile(r"(?<=\S)'(?![^\W_])")
_CLOSES_CURLY_SINGLE = re.compile(r"’(?![^\W_])")


def _opening_single(text: str, line_start: int, start: int) -> int:
    """The straight single quote that opens a quotation still open at `start`, or -1:
    walking back, an apostrophe inside a word is passed over, a closing quote ends it."""
    at = text.rfind("'", line_start, start)
    while at >= 0:
        before = text[at - 1] if at > 0 else " "
        after = text[at + 1 : at + 2]
        if not before.isalnum() and after.isalnum():
            return at
        if not before.isspace() and not after.isalnum():
            return -1  # a quotation closed before the title
        at = text.rfind("'", line_start, at)
    return -1


def _first(pattern: re.Pattern[str], text: str, start: int, end: int) -> int:
    m = pattern.search(text, start, end)
    return m.start() if m else -1


#: How far a quotation around a title may reach on its line, each way: a text's every
#: title is looked at, so a longer reach would make a long line quadratic to read.
_QUOTE_REACH: Final = 2000


def _enclosing(text: str, start: int, end: int) -> _Quote | None:
    """The quotation (on the same line, within `_QUOTE_REACH` characters each way) that
    encloses text[start:end], if any."""
    line_start = text.rfind("\n", max(0, start - _QUOTE_REACH), start) + 1
    line_start = max(line_start, start - _QUOTE_REACH)
    line_end = text.find("\n", end, end + _QUOTE_REACH)
    line_end = min(len(text), end + _QUOTE_REACH) if line_end < 0 else line_end
    found: list[_Quote] = []
    if text.count('"', line_start, start) % 2:
        close = text.find('"', end, line_end)
        if close >= 0:
            found.append(_Quote(text.rfind('"', line_start, start), close))
    at = text.rfind("“", line_start, start)
    if at >= 0 and text.find("”", at, start) < 0:
        close = text.find("”", end, line_end)
        if close >= 0:
            found.append(_Quote(at, close))
    at = text.rfind("‘", line_start, start)
    if at >= 0 and _first(_CLOSES_CURLY_SINGLE, text, at, start + 1) < 0:
        close = _first(_CLOSES_CURLY_SINGLE, text, end, line_end)
        if close >= 0:
            found.append(_Quote(at, close))
    at = _opening_single(text, line_start, start)
    if at >= 0:
        close = _first(_CLOSES_SINGLE, text, end, line_end)
        if close >= 0:
            found.append(_Quote(at, close))
    return max(found, key=lambda q: q.open, default=None)  # the innermost


def _emphasised(text: str, start: int, end: int) -> bool:
    """*X*, **X**, _X_ right around the words (punctuation may end them: *Up!*)."""
    j = start
    while j and text[j - 1] in _EMPHASIS:
        j -= 1
    opening = text[j:start]
    if not opening:
        return False
    year = _YEAR.match(text, end)  # *Up (2009)*
    k = year.end() if year else end
    while k < len(text) and text[k] in ".,;:!?…":
        k += 1  # punctuation before the closing marks: *Up!*
    return text.startswith(opening[::-1], k)


def _only_marks(part: str) -> bool:
    return not any(ch.isalnum() for ch in _YEAR.sub("", part))


def _said(text: str, quote: _Quote) -> bool:
    """Whether a verb or noun of saying stands just before the quotation or after it."""
    head = text[: quote.open]
    cut = max((m.end() for m in _SENTENCE_END.finditer(head)), default=0)
    before = [w.casefold() for w in _WORDS.findall(head[cut:])][-_SAYING_REACH:]
    tail = text[quote.close + 1 :]
    stop = _SENTENCE_END.search(tail)
    after = [w.casefold() for w in _WORDS.findall(tail[: stop.start() if stop else None])]
    return not SAYING.isdisjoint(before) or not SAYING.isdisjoint(after[:_SAYING_REACH])


def marks(text: str, start: int, end: int, exact: bool) -> Marks:
    """How marks stand around the title written at text[start:end] (module docstring);
    `exact`: whether those words spell the title as the catalog does, capitals included."""
    quote = _enclosing(text, start, end)
    if quote is not None:
        inside = _only_marks(text[quote.open + 1 : start]) and _only_marks(text[end : quote.close])
        if not inside or (_said(text, quote) and not exact):
            return Marks.SPEECH
        return Marks.TITLE
    return Marks.TITLE if _emphasised(text, start, end) else Marks.NONE
