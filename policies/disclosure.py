"""Does a text disclose that a title is sponsored?

A disclosure is one of these terms, as a word of its own: "sponsored", "sponsorship",
"sponsor", "promoted", "promotion(al)", "advertisement", "advertising", "advertised",
"paid placement/promotion/partnership/content", or "an ad" / "a paid ad". Words that only
contain such a term are not disclosures ("ad-free", "ad hoc", "unsponsored",
"non-promotional", "paid attention"). A term negated within its clause is not a disclosure:
a negator ("not", "no", "never", "without", a "n't" contraction, ...) among the three words
before it, as in "this is not sponsored" or "there's no paid placement here".
"""

from __future__ import annotations

import re

_TERM = re.compile(
    r"(?<![-\w])(?:"
    r"sponsor(?:ed|ship|s)?"
    r"|promot(?:ed|ion|ions|ional)"
    r"|advertis(?:ement|ements|ing|ed)"
    r"|paid\s+(?:placement|promotion|partnership|content)"
    r"|(?:an|paid)\s+ad"
    r")(?![-\w])",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r"[.;:!?,()\n—–]|\s-\s|\bbut\b|\bthough\b|\balthough\b", re.IGNORECASE)
_WORDS = re.compile(r"[\w']+")
_NEGATORS = frozenset(
    {"not", "no", "never", "without", "nothing", "none", "neither", "nor", "nobody", "zero"}
)
_NEGATION_WINDOW = 3


def _negated(before: str) -> bool:
    clause = _CLAUSE_BREAK.split(before)[-1]
    words = [w.casefold().replace("’", "'") for w in _WORDS.findall(clause)]
    return any(w in _NEGATORS or w.endswith("n't") for w in words[-_NEGATION_WINDOW:])


def disclosure(text: str) -> str | None:
    """The first disclosing phrase in `text`, or None (see the module docstring)."""
    text = text.replace("’", "'")
    for m in _TERM.finditer(text):
        if not _negated(text[: m.start()]):
            return m.group()
    return None
