"""Finding catalog titles mentioned in free text.

Used by the single_recommendation check (did one message pitch two titles?) and by the
simulated user (which title is the agent talking about?). Matching is on word tokens,
case- and punctuation-insensitive, longest title first; a one-word title must appear
capitalised as in the catalog, so the title "Home" is not found in "at home tonight".
A title that is part of a longer person's name in the catalog (cast or director) is not
a mention: the film "David" is not found in "David Jonsson" or "David Jonsson's".

`find` is lenient (the simulated user reads the agent's words as a listener would);
`find_written` keeps only titles written as titles (catalog/title_evidence.py), for the
policy checks that fail an agent on what its text names.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from taurec.catalog.item import Item
from taurec.catalog.records import ItemRecords
from taurec.catalog.title_evidence import written_as_title
from taurec.catalog.title_index import Entry, SavedTitles
from taurec.catalog.tokens import WORD as _WORD
from taurec.catalog.tokens import fold_text as _fold_text
from taurec.catalog.tokens import fold_word as _fold
from taurec.catalog.tokens import title_tokens

__all__ = ["Mention", "TitleMatcher", "distinct", "title_tokens"]


@dataclass(frozen=True)
class Mention:
    title: str
    item_ids: tuple[str, ...]  # several when the catalog holds two items with one title
    start: int  # character offset in the text
    end: int = -1  # offset just past the title's last word (-1: not recorded)


class TitleMatcher:
    """Index of catalog titles for fast exact (normalised) mention search.

    Over a catalog folder's items it opens the folder's saved title index (memory-mapped,
    see `taurec.catalog.title_index`) instead of reading every item; the answers are the
    same.
    """

    def __init__(self, items: Iterable[Item]) -> None:
        self._is_name: Callable[[tuple[str, ...]], bool]
        self._entry: Callable[[tuple[str, ...]], Entry | None]
        #: the lengths (longest first) of the titles of two or more words that each pair of
        #: first words starts, and the one-word titles (None: not known, try every length)
        self._lens: dict[tuple[str, str], tuple[int, ...]] | None
        self._single: frozenset[str]
        saved = items.saved_titles if isinstance(items, ItemRecords) else None
        if saved is not None:
            self._use_saved(saved)
            return
        # One pass, holding no item: a catalog folder's items are decoded one at a time.
        by_tokens: dict[tuple[str, ...], list[str]] = defaultdict(list)
        titles: dict[tuple[str, ...], str] = {}
        names: set[tuple[str, ...]] = set()
        for item in items:
            toks = title_tokens(item.title)
            if toks:
                by_tokens[toks].append(item.id)
                titles.setdefault(toks, item.title)
            for person in (*item.cast, item.director or ""):
                toks = title_tokens(person)
                if len(toks) > 1:
                    names.add(toks)
        self._is_name = frozenset(names).__contains__
        self._name_lens = sorted({len(n) for n in names})
        entries = {k: (titles[k], tuple(v)) for k, v in by_tokens.items()}
        self._entry = entries.get
        self._first_words = frozenset(toks[0] for toks in entries)
        self._max_len = max((len(toks) for toks in entries), default=0)
        lens: dict[tuple[str, str], set[int]] = defaultdict(set)
        for toks in entries:
            if len(toks) > 1:
                lens[toks[0], toks[1]].add(len(toks))
        self._lens = {pair: tuple(sorted(ns, reverse=True)) for pair, ns in lens.items()}
        self._single = frozenset(toks[0] for toks in entries if len(toks) == 1)

    def _use_saved(self, saved: SavedTitles) -> None:
        self._is_name = saved.is_name
        self._name_lens = saved.name_lens
        self._entry = saved.get
        self._first_words = saved.first_words
        self._max_len = saved.max_len
        self._lens = None
        self._single = frozenset()

    def find(self, text: str) -> list[Mention]:
        """Distinct titles mentioned in `text`, in order of first appearance."""
        return distinct(m for m, _, _, _ in self._scan(text))

    def find_written(self, text: str) -> list[Mention]:
        """Distinct titles written as titles in `text` (catalog/title_evidence.py): not
        "the drama builds slowly" for "The Drama", nor "fans of David Lynch" for "David"."""
        return distinct(self.occurrences(text))

    def occurrences(self, text: str) -> list[Mention]:
        """Every place in `text` where a title is written as a title, in order."""
        return [
            m for m, words, i, n in self._scan(text) if written_as_title(text, words, i, n, m.title)
        ]

    def _scan(self, text: str) -> Iterator[tuple[Mention, list[re.Match[str]], int, int]]:
        """Each title occurrence (longest title first, none inside a person's name), with
        the text's words and the occurrence's first word and length."""
        # fold once for the whole text; NFKD can change lengths, so offsets come from `text`
        folded_text = _fold_text(text)
        folded = _WORD.findall(folded_text)
        if "'" in folded_text:
            folded = [w.replace("'", "") for w in folded]
        words: list[re.Match[str]] | None = None
        if not text.isascii():  # lower-casing ASCII keeps every word: no check needed
            words = list(_WORD.finditer(text))
            if len(folded) != len(words):  # folding split or merged a word: slow, exact path
                folded = [_fold(m.group()) for m in words]
        first_words, entry_of, lens, single = (
            self._first_words,
            self._entry,
            self._lens,
            self._single,
        )
        if first_words.isdisjoint(folded):
            return
        shouted = text.isupper()  # all in capitals: "HAVE YOU SEEN HAMNET?"
        covered = 0
        for i, word in enumerate(folded):
            if i < covered or word not in first_words:
                continue
            hit: tuple[tuple[str, ...], Entry] | None = None
            rest = len(folded) - i
            if lens is None:
                sizes: Iterable[int] = range(min(self._max_len, rest), 0, -1)
            else:
                sizes = lens.get((word, folded[i + 1]), ()) if rest > 1 else ()
                if word in single:
                    sizes = (*sizes, 1)
            for n in sizes:  # longest title first
                if n > rest:
                    continue
                cand = tuple(folded[i : i + n])
                entry = entry_of(cand)
                if entry is None:
                    continue
                if words is None:  # the text's words, read at its first title
                    words = list(_WORD.finditer(text))
                spelt = entry[0].strip("'\"").split()[0]
                if n == 1 and words[i].group() not in (spelt, spelt.upper() if shouted else spelt):
                    continue  # one-word titles only count when written as the title is
                hit = cand, entry
                break
            if hit is None:
                continue
            assert words is not None  # read with the hit
            if self._in_name(words, folded, i, len(hit[0])):
                continue
            toks, (title, ids) = hit
            n = len(toks)
            yield Mention(title, ids, words[i].start(), words[i + n - 1].end()), words, i, n
            covered = i + n

    def _in_name(self, words: list[re.Match[str]], folded: list[str], i: int, n: int) -> bool:
        """Whether words[i : i + n] lie inside a longer person's name in the text."""
        for m in self._name_lens:
            if m <= n:
                continue
            for j in range(max(0, i + n - m), min(i, len(folded) - m) + 1):
                span = folded[j : j + m]
                last = words[j + m - 1].group()
                if last.endswith("'s"):  # a possessive: "Michael Irby's"
                    span[-1] = _fold(last[:-2])
                if self._is_name(tuple(span)):
                    return True
        return False


def distinct(mentions: Iterable[Mention]) -> list[Mention]:
    """The first mention of each title, in order."""
    found: dict[str, Mention] = {}
    for m in mentions:
        found.setdefault(m.title, m)
    return list(found.values())
