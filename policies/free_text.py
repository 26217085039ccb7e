"""Does a text recommend a catalog title in so many words, outside the `recommend` tool?

A sentence recommends a title when it says so outright: "I recommend X", "I'd suggest
X", "you should watch X", "you'll love X", "watch X tonight", "go with X", "my pick is
X", "X is my pick", "X is perfect for you", "X it is". It does not when it asks ("How
about X?"), denies ("I can't recommend X"), supposes or looks back ("if it were on Hulu I
would recommend X", "X would have been my pick"), or takes it back in the same sentence
("I'd suggest X, but it is rated R"). Near misses named to explain an abstention ("X came
closest, but it runs 150 minutes") are no recommendation.
"""

from __future__ import annotations

import re
from typing import Final

from taurec.catalog.mentions import Mention
from taurec.policies import disclosure_words as w
from taurec.policies.statements import Kind, Sentence, sentences

_T = r"<t(\d+)>"
_FILLER = r"(?:(?:out|watching|checking|trying|giving|seeing|streaming|the|film|movie|series|show|a|try|with|for|up|on|,)\s+){0,3}"
_MODAL = r"(?:should|must|will|would|might|may|could|can|need\s+to|have\s+to|are\s+going\s+to)"
_LIKE = r"(?:watch|try|see|love|enjoy|like|adore|check|go|stream|pick|choose|give)"
_GOOD = (
    r"(?:perfect|ideal|a\s+(?:great|perfect|good)\s+(?:fit|match|choice|pick)|the\s+best"
    r"\s+(?:fit|match|choice|pick)|the\s+one|your\s+best\s+bet|exactly\s+what\s+you\s+want"
    r"|right\s+up\s+your\s+alley|just\s+right)"
)
_PICK = r"(?:my|our)\s+(?:top\s+|final\s+|personal\s+)?(?:pick|recommendation|suggestion|choice)"
_PATTERNS: Final = tuple(
    re.compile(p)
    for p in (
        rf"\b(?:recommend|suggest)\s+{_FILLER}{_T}",
        rf"\byou\s+(?:{_MODAL}\s+)?(?:really\s+|definitely\s+|absolutely\s+)?{_LIKE}\s+{_FILLER}{_T}",
        rf"(?:^|[,:;]\s+|\b(?:so|then|just|definitely|honestly)\s+)"
        rf"(?:watch|try|stream|check\s+out|go\s+(?:with|for)|pick|choose|queue\s+up|put\s+on)"
        rf"\s+{_FILLER}{_T}",
        rf"\b{_PICK}\s+(?:is|would\s+be|:|—|-)\s+{_T}",
        rf"{_T}\s+(?:is|would\s+be)\s+(?:definitely\s+|really\s+|simply\s+)?{_PICK}",
        rf"{_T}\s+(?:is|would\s+be)\s+(?:definitely\s+|really\s+|simply\s+)?{_GOOD}",
        rf"\b(?:i|we)\s+(?:would\s+|will\s+)?go\s+(?:with|for)\s+{_T}",
        rf"{_T}\s+it\s+is\b",
    )
)
_COUNTERFACTUAL = re.compile(r"\b(?:would|could|might|should)\s+(?:not\s+)?have\b")
_TAKEN_BACK = re.compile(r"\b(?:but|however|though|although|unfortunately|except)\b")
_CLAUSE_STARTS: Final = frozenset({"but", "however", "though", "although", "yet", ";", ":", "—"})
_NEGATED = w.NEGATORS | {"wouldn't", "shouldn't"}
_HEDGED = (w.HEDGES - {"would", "could", "might", "may", "think", "believe"}) | w.HYPOTHETICAL


def _normalised(s: Sentence) -> tuple[str, list[int]]:
    """The sentence as lower-case words with titles as <tN>, and each title's start."""
    parts: list[str] = []
    starts: list[int] = []
    for t in s.tokens:
        if t.kind is Kind.TITLE:
            parts.append(f"<t{len(starts)}>")
            starts.append(t.start)
        else:
            parts.append(t.text)
    return " ".join(parts), starts


def _recommends(s: Sentence) -> int | None:
    """The start offset of the title `s` recommends, or None (see the module docstring)."""
    if s.question:
        return None
    text, starts = _normalised(s)
    for pattern in _PATTERNS:
        m = pattern.search(text)
        if m is None:
            continue
        before, after = text[: m.start()].split(), text[m.end() :]
        cut = max((i for i, x in enumerate(before) if x in _CLAUSE_STARTS), default=-1)
        before = before[cut + 1 :]
        if _NEGATED & {*before, *m.group().split()} or _HEDGED & set(before):
            return None
        if _COUNTERFACTUAL.search(text) or _TAKEN_BACK.search(after):
            return None
        return starts[int(m.group(1))]
    return None


def recommended_title(text: str, titles: list[Mention]) -> tuple[str, str] | None:
    """(title, sentence) for the first title `text` recommends in so many words, or None.
    `titles`: the text's title occurrences (`TitleMatcher.occurrences`)."""
    if not titles:  # every pattern needs a title
        return None
    by_start = {m.start: m.title for m in titles}
    for s in sentences(text, titles, None, implicit=False):
        at = _recommends(s)
        if at is not None and at in by_start:
            return by_start[at], s.quote(text)
    return None
