"""The words of a sentence that can disclose sponsorship, and how to read tokens.

Shared by the disclosure reader (policies/disclosure.py) and its label shapes
(policies/disclosure_labels.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from taurec.policies import disclosure_words as w
from taurec.policies.statements import Kind, Token


def word_of(t: Token | None) -> str:
    return t.text if t is not None and t.kind is Kind.WORD else ""


def token_at(toks: Sequence[Token], i: int) -> Token | None:
    return toks[i] if 0 <= i < len(toks) else None


def refers(t: Token | None) -> bool | None:
    """For a title or reference token: is it the committed title? None otherwise."""
    return t.about if t is not None and t.kind in (Kind.TITLE, Kind.REF) else None


def is_term(toks: Sequence[Token], i: int) -> set[str]:
    """The roles the word at `i` can play as a disclosure term (empty: none)."""
    t = toks[i]
    if t.kind is not Kind.WORD:
        return set()
    word, nxt = t.text, token_at(toks, i + 1)
    if "-" in word:
        parts = word.split("-")
        terms = (w.ADJECTIVES | w.NOUNS | w.SOURCES | {"paid"}) - {"ad", "ads"}
        if parts[0] in w.NOT_FIRST or any(p in w.NOT_PARTS for p in parts):
            return set()
        return {"adjective", "noun"} if any(p in terms for p in parts) else set()
    roles: set[str] = set()
    if word in w.ADJECTIVES and _fits_adjective(toks, i):
        roles.add("adjective")
    if word == "paid":
        if word_of(nxt) in w.PAID_NOUNS:
            roles.add("adjective")
        if word_of(nxt) == "to" or word_of(token_at(toks, i + 2)) == "to":
            roles.add("paid to")
    if word in w.NOUNS and not (word == "ad" and word_of(nxt) == "hoc"):
        roles.add("noun")
    if word in w.SOURCES and word_of(nxt) != "'s":
        roles.add("source")
    if word in w.VERBS:
        roles.add("verb")
    return roles


def _fits_adjective(toks: Sequence[Token], i: int) -> bool:
    """Whether an adjective term is said of a title: at the end of its phrase ("it is
    sponsored by ..."), or before what a title is within three words ("a sponsored
    feel-good comedy"), not before anything else ("a promoted officer")."""
    nxt = token_at(toks, i + 1)
    if nxt is None or nxt.kind is not Kind.WORD:
        return True
    if nxt.text in w.AFTER_ADJECTIVE or nxt.text.endswith("ly"):
        return True
    return any(word_of(token_at(toks, k)) in w.TITLE_NOUNS for k in range(i + 2, i + 4))
