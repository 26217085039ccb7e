"""Labels on a title ("Saltwater Kings (sponsored)", "Sponsored pick: X") and "one of
them" ("I never hide sponsored picks, and this is one"), for policies/disclosure.py."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from taurec.policies import disclosure_words as w
from taurec.policies.disclosure_terms import is_term, refers, token_at, word_of
from taurec.policies.statements import Kind, Sentence, Token

ENDS = frozenset({".", "!", "?", "…", "..", "..."})


def label_is(toks: Sequence[Token], i: int) -> int | None:
    """The title a label names: "Today's sponsored pick is Saltwater Kings"."""
    for j in range(i + 1, min(i + 6, len(toks))):
        t = toks[j]
        if t.text in ("is", ":", "→", "—", "–") and t.kind is not Kind.TITLE:
            return j + 1 if refers(token_at(toks, j + 1)) else None
        if word_of(t) not in w.LABEL_NOUNS | {
            "this",
            "week",
            "today",
            "tonight",
            "here",
            "on",
            "the",
            "platform",
            "time",
            "alert",
            "note",
            "notice",
            "warning",
            "round",
            "month",
            "'s",
        }:
            return None
    return None


def segments(toks: Sequence[Token]) -> list[tuple[int, int]]:
    """Spans of tokens between punctuation marks ("(", ",", ":", "—", ...)."""
    cuts = [i for i, t in enumerate(toks) if t.kind is Kind.PUNCT and t.text in "()[],:—–-.!…;"]
    bounds = [-1, *cuts, len(toks)]
    return [(a + 1, b) for a, b in itertools.pairwise(bounds) if b > a + 1]


def label_about(toks: Sequence[Token], a: int, b: int, carried: bool | None) -> bool | None:
    """Which title the bare label toks[a:b] is about (see the module docstring)."""
    before, after = token_at(toks, a - 1), token_at(toks, b)
    nearest = next((refers(t) for t in reversed(toks[:a]) if refers(t) is not None), None)
    bracketed = before is not None and before.text in ("(", "[")
    if bracketed:
        named = refers(token_at(toks, a - 2))
        if named is not None:
            return named
        if a == 1 and refers(token_at(toks, b + 1)) is not None:  # "[Sponsored] Saltwater Kings"
            return refers(token_at(toks, b + 1))
        if any(is_term(toks, k) for k in range(max(a - 4, 0), a - 1)):
            return None  # it glosses a phrase: "sponsored titles (paid placements)"
        rest = toks[b + 1 :]
        if all(t.kind is Kind.PUNCT and t.text in ENDS for t in rest):
            return nearest if nearest is not None else carried
        return None
    if (
        after is not None
        and after.text in (":", "—", "–", "→")
        and refers(token_at(toks, b + 1)) is not None
    ):
        return refers(token_at(toks, b + 1))
    whole = all(
        t.kind is Kind.PUNCT or t.text in w.LABEL_WORDS or is_term(toks, k)
        for k, t in enumerate(toks)
    )
    if whole:
        return carried
    rest = toks[b:]
    others = [t for t in rest if t.kind is Kind.TITLE or refers(t) is False]
    if nearest is None and a == 0 and not others:
        return carried  # "Sponsored, for what it's worth."
    return nearest


def one_of_them(toks: Sequence[Token], prev: Sentence | None) -> int | None:
    """A reference said to be "one" of sponsored titles named just before: "I never hide
    sponsored picks from you, and this is one"."""
    for p, t in enumerate(toks):
        if (
            not refers(t)
            or word_of(token_at(toks, p + 1)) not in ("is", "was")
            or word_of(token_at(toks, p + 2)) != "one"
        ):
            continue
        nxt = token_at(toks, p + 3)
        tail = (word_of(nxt), word_of(token_at(toks, p + 4)))
        if not (
            nxt is None
            or nxt.kind is Kind.PUNCT
            or tail in {("of", "them"), ("of", "those"), ("of", "these")}
            or tail[0] == "too"
        ):
            continue
        pool = [*(prev.tokens if prev else ()), *toks[:p]]
        if any(_generic_term(pool, k) for k in range(len(pool))):
            return p
    return None


def _generic_term(toks: Sequence[Token], k: int) -> bool:
    """A term said of titles in general or of "a" title: "sponsored picks", "some titles are
    sponsored", "a sponsored pick"."""
    if not is_term(toks, k) and word_of(toks[k]) != "sponsored":
        return False
    after = {word_of(token_at(toks, k + 1)), word_of(token_at(toks, k + 2))}
    before = {word_of(token_at(toks, k - 1)), word_of(token_at(toks, k - 2))}
    return bool(after & w.LABEL_NOUNS) or bool(before & {"are", "were", "get"})
