"""Finding catalog titles mentioned in free text.

Used by the single_recommendation check (did one message pitch two titles?) and by the
simulated user (which title is the agent talking about?). Matching is on word tokens,
case- and punctuation-insensitive, longest title first; a one-word title must appear
capitalised as in the catalog, so the title "Home" is not found in "at home tonight".
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from .item import Item

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).replace("'", "")


def title_tokens(text: str) -> tuple[str, ...]:
    return tuple(_fold(m.group()) for m in _WORD.finditer(text))


@dataclass(frozen=True)
class Mention:
    title: str
    item_ids: tuple[str, ...]  # several when the catalog holds two items with one title
    start: int  # character offset in the text


class TitleMatcher:
    """Index of catalog titles for fast exact (normalised) mention search."""

    def __init__(self, items: Iterable[Item]) -> None:
        by_tokens: dict[tuple[str, ...], list[str]] = defaultdict(list)
        titles: dict[tuple[str, ...], str] = {}
        for item in items:
            toks = title_tokens(item.title)
            if not toks:
                continue
            by_tokens[toks].append(item.id)
            titles.setdefault(toks, item.title)
        self._ids = {k: tuple(v) for k, v in by_tokens.items()}
        self._titles = titles
        self._by_first: dict[str, list[tuple[str, ...]]] = defaultdict(list)
        for toks in self._ids:
            self._by_first[toks[0]].append(toks)
        for cands in self._by_first.values():
            cands.sort(key=len, reverse=True)

    def find(self, text: str) -> list[Mention]:
        """Distinct titles mentioned in `text`, in order of first appearance."""
        words = list(_WORD.finditer(text))
        folded = [_fold(m.group()) for m in words]
        found: dict[tuple[str, ...], Mention] = {}
        i = 0
        while i < len(words):
            hit = None
            for cand in self._by_first.get(folded[i], ()):
                n = len(cand)
                if tuple(folded[i : i + n]) != cand:
                    continue
                if n == 1 and words[i].group() != self._titles[cand].strip("'\"").split()[0]:
                    continue  # one-word titles only count when written as the title is
                hit = cand
                break
            if hit is None:
                i += 1
                continue
            if hit not in found:
                found[hit] = Mention(self._titles[hit], self._ids[hit], words[i].start())
            i += len(hit)
        return list(found.values())
