"""Finding catalog titles mentioned in free text.

Matching is on word tokens, case- and punctuation-insensitive, longest title first, under
any reading form of a title (catalog/title_forms.py: "The Usual Suspects" for "Usual
Suspects, The (1995)", "Toy Story" for "Toy Story (1995)"), possessives and an article
put last read as catalog/title_text.py says ("Hamnet's", "Usual Suspects, The"). A
one-word title must appear capitalised as in the catalog, so "Home" is not found in "at
home tonight" (in a text with no capitals, `find_written` may still read it, on other
evidence: catalog/title_evidence.py). Every method reads the same places as no title at all:

- a title that is part of a longer person's name in the catalog (cast or director): the
  film "David" is not in "David Jonsson" or "David Jonsson's";
- part of a hyphenated word ("Up-to-date");
- a title whose capitalised words the text capitalises only in part: "after leaving
  Brackford" names no "Leaving Brackford" (catalog/title_evidence.py);
- a title inside quoted speech or a longer quotation (catalog/title_quotes.py: `As she
  says, "never look back"` names no "Never Look Back");
- a one-word title where a place stands in a plot (catalog/title_places.py: "after
  leaving Brackford"), unless marked as a title;
- a title inside a longer capitalised name that a year follows: "Avengers: Infinity War
  (2018)" names no "Infinity" (the longer name, were it a title, would match first).

A year in brackets right after a title ("Shall We Dance? (1937)"), or said with it ("the
1937 Shall We Dance?", "Shall We Dance? from 1937") keeps only that title's items
released then, or within a year (`Mention.year`); a year no item has leaves the
mention with no item, reported as such. A title named once with a year and again without
one, in one text, means the same item both times. A title two items share, with no year
to tell them apart, names both: `Mention.ambiguous`. Nothing here guesses between them.

Which method each reader calls:

- the policy checks (policies/checks.py, statements.py, free_text.py, disclosure.py):
  `occurrences`, every place a title is written as a title (catalog/title_evidence.py:
  not "the drama builds slowly" for "The Drama"), in order, with offsets;
  `find_written` when only the distinct titles matter;
- a CRS harness (clients/agents/contestants/crs.py), reading what a CRS wrote:
  `find_written`; commit a mention's item only when it names exactly one
  (`Mention.item_id`), and treat an ambiguous mention or one with no item as unclear;
- the simulated user (server/recommendation/simulator/nlu.py): `find`, which hears a
  title in any case as a listener would ("how about the long garden?"), and
  `occurrences(text, written=False)` for every place `find` reads one; a mention that
  names no item or several is unclear to it (server/recommendation/simulator/policy.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from taurec.catalog.item import Item
from taurec.catalog.records import ItemRecords
from taurec.catalog.title_evidence import partly_capitalised
from taurec.catalog.title_hits import TitleHit, stands
from taurec.catalog.title_hits import written as written_hits
from taurec.catalog.title_index import TitleGroup
from taurec.catalog.title_table import TitleTable
from taurec.catalog.title_text import (
    TextWords,
    all_capitals,
    no_capitals,
    with_year,
    year_after,
    year_before,
)
from taurec.catalog.tokens import WORD, title_tokens
from taurec.catalog.tokens import fold_word as _fold

__all__ = ["Mention", "TitleMatcher", "distinct", "title_tokens"]


@dataclass(frozen=True)
class Mention:
    """A catalog title named in a text.

    `item_ids`: the items it names: one; several when two items share the title and the
    text does not say which (`ambiguous`); none when the text gives a year no item of the
    title has ("Shall We Dance? (2004)"). `year`: the year written with it (in brackets
    after it, or "the 1937 ...", "... from 1937"; or with another mention of the title in
    the same text) that chose `item_ids`."""

    title: str
    item_ids: tuple[str, ...]  # several when the catalog holds two items with one title
    start: int  # character offset in the text
    end: int = -1  # offset just past the title's last word (-1: not recorded)
    year: int | None = None

    @property
    def ambiguous(self) -> bool:
        """Whether it names two or more items (after its year, if any, chose among them)."""
        return len(self.item_ids) > 1

    @property
    def item_id(self) -> str | None:
        """The one item it names, or None (ambiguous, or a year no item has)."""
        return self.item_ids[0] if len(self.item_ids) == 1 else None


#: How many texts a TitleMatcher remembers the occurrences of.
SEEN_MOST = 1 << 13


class TitleMatcher:
    """Index of catalog titles for fast exact (normalised) mention search.

    Over a catalog folder's items it opens the folder's saved title index (memory-mapped,
    see `taurec.catalog.title_index`) instead of reading every item; the answers are the
    same.
    """

    def __init__(self, items: Iterable[Item]) -> None:
        saved = items.saved_titles if isinstance(items, ItemRecords) else None
        self._table = TitleTable.of_items(items) if saved is None else TitleTable.of_saved(saved)
        # (text, written) -> its occurrences: agents and simulated users say the same
        # things over and over (emptied when full)
        self._seen: dict[tuple[str, bool], list[Mention]] = {}

    def find(self, text: str) -> list[Mention]:
        """Distinct titles mentioned in `text` in any case, in order of first appearance."""
        return distinct(self.occurrences(text, written=False))

    def find_written(self, text: str) -> list[Mention]:
        """Distinct titles written as titles in `text` (catalog/title_evidence.py): not
        "the drama builds slowly" for "The Drama", nor "fans of David Lynch" for "David"."""
        return distinct(self.occurrences(text))

    def occurrences(self, text: str, *, written: bool = True) -> list[Mention]:
        """Every place in `text` where a title is written as a title (`written=False`:
        where `find` reads one), in order. Found once per text (up to SEEN_MOST texts):
        the list is shared, never to be changed."""
        key = (text, written)
        found = self._seen.get(key)
        if found is None:
            if len(self._seen) >= SEEN_MOST:
                self._seen.clear()
            found = self._seen[key] = self._occurrences(text, written)
        return found

    def _occurrences(self, text: str, written: bool) -> list[Mention]:
        tw = TextWords(text)
        hits = [hit for hit in self._scan(tw) if (written or not hit.case_free) and stands(tw, hit)]
        mentions = _mentions(hits)
        if not written or not hits:
            return mentions
        return [m for m, ok in zip(mentions, written_hits(tw, hits), strict=True) if ok]

    # --- finding a title's words ----------------------------------------------------------

    def _scan(self, tw: TextWords) -> Iterator[TitleHit]:
        """Each title occurrence (longest title first, none inside a person's name)."""
        table, text = self._table, tw.text
        folded = tw.folded
        if (
            table.first_words.isdisjoint(folded)
            and table.first_words.isdisjoint(tw.possessive.values())
            and "," not in text
        ):
            return
        first_words, possessive = table.first_words, tw.possessive
        last_articles = tw.articles_last if "," in text else frozenset()
        #: where a title written article last may start ("Usual Suspects, The")
        before_articles = {i for j in last_articles for i in range(max(0, j - table.max_len), j)}
        covered = 0
        for i, word in enumerate(folded):
            if i < covered:
                continue
            if (
                word not in first_words
                and possessive.get(i) not in first_words
                and i not in before_articles
            ):
                continue
            hit = self._longest(tw, i)
            if hit is None or self._in_name(tw.words, folded, i, hit.n):
                continue
            if partly_capitalised(tw.text, tw.words, i, hit.n, hit.spelling):
                continue  # the capitals name something else; a title inside may follow
            yield hit
            covered = i + hit.n
            while covered < len(folded) and tw.words[covered].start() < hit.after:
                covered += 1  # the year is no word of another title

    def _longest(self, tw: TextWords, i: int) -> TitleHit | None:
        table, folded, possessive = self._table, tw.folded, tw.possessive
        word, rest = folded[i], len(folded) - i
        sizes: set[int] = set()
        if table.lens is None:
            sizes.update(range(1, min(table.max_len, rest) + 1))
        else:
            if rest > 1:
                sizes.update(table.lens.get((word, folded[i + 1]), ()))
                if i + 1 in possessive:
                    sizes.update(table.lens.get((word, possessive[i + 1]), ()))
            if word in table.single or possessive.get(i) in table.single:
                sizes.add(1)
        last_articles = tw.articles_last if "," in tw.text else frozenset()
        sizes.update(j - i + 1 for j in last_articles if 0 < j - i <= table.max_len)
        for n in sorted(sizes, reverse=True):
            if n > rest:
                continue
            hit = self._hit(tw, i, n, last_articles)
            if hit is not None:
                return hit
        return None

    def _hit(self, tw: TextWords, i: int, n: int, last_articles: frozenset[int]) -> TitleHit | None:
        """The title words[i : i + n] spell, read as written, with a possessive's "'s" off,
        or with an article put last read first; None when they spell none."""
        table, folded = self._table, tw.folded
        last = i + n - 1
        keys: list[tuple[tuple[str, ...], str]] = []  # (key, how the text writes it)
        if last in last_articles and n > 1:
            article, body = folded[last], folded[i:last]
            first = (article + body[0], *body[1:]) if article == "l" else (article, *body)
            keys.append((first, "last"))
        if len(folded[last]) == 4 and tw.in_brackets(last):
            return None  # a year in brackets is read as a year, never as a title's word
        keys.append((tuple(folded[i : i + n]), "plain"))
        if last in tw.possessive:
            keys.append(((*folded[i:last], tw.possessive[last]), "possessive"))
        for key, how in keys:
            if key[0] not in table.first_words:
                continue
            reading = table.reading(key)
            if reading is None:
                continue
            words = tw.words
            end = words[last].end() - (2 if how == "possessive" else 0)
            spelt = (
                _spelt_as(tw.text[words[i].start() : end], reading.spelling, tw) if n == 1 else ""
            )
            if spelt is None:
                continue  # one-word titles only count when written as the title is
            spelling = reading.spelling
            if how == "last":
                parts = [m.group() for m in WORD.finditer(spelling)]
                spelling = " ".join([*parts[1:], parts[0]]) if len(parts) == n else spelling
            start = words[i].start()
            found = year_after(tw.text, end)
            year, after = found if found else (year_before(tw.text, start), end)
            hit = TitleHit(
                i, n, reading, spelling, start, end, year, after, how == "last", found is not None
            )
            hit.case_free = spelt == "lower"
            return hit
        return None

    def _in_name(self, words: list[re.Match[str]], folded: list[str], i: int, n: int) -> bool:
        """Whether words[i : i + n] lie inside a longer person's name in the text."""
        for m in self._table.name_lens:
            if m <= n:
                continue
            for j in range(max(0, i + n - m), min(i, len(folded) - m) + 1):
                span = folded[j : j + m]
                last = words[j + m - 1].group()
                if last.endswith("'s"):  # a possessive: "Michael Irby's"
                    span[-1] = _fold(last[:-2])
                if self._table.is_name(tuple(span)):
                    return True
        return False


def _spelt_as(written: str, spelling: str, tw: TextWords) -> str | None:
    """How the text spells a one-word title: "as written" (the catalog's capitals),
    "shouted" (in a text in capitals), "lower" (in a text with no capitals, where only
    `find_written`'s evidence can make it the title), or None (not as the title)."""
    spelt = WORD.search(spelling.replace("’", "'"))
    if spelt is None:
        return None
    word = spelt.group()
    if written == word:
        return "as written"
    if written == word.upper() and all_capitals(tw.text):
        return "shouted"
    if written == word.lower() and no_capitals(tw.text):
        return "lower"
    return None


def _mentions(hits: list[TitleHit]) -> list[Mention]:
    """The hits as mentions, each title's items chosen by its year (or by the one year the
    text gives it elsewhere)."""
    years: dict[tuple[str, ...], set[int]] = {}
    for hit in hits:
        if hit.year is not None:
            years.setdefault(hit.all_ids, set()).add(hit.year)
    out = []
    for hit in hits:
        year = hit.year
        given = years.get(hit.all_ids, set())
        if year is None and len(given) == 1:
            year = next(iter(given))
        groups: list[TitleGroup] = list(hit.reading.groups)
        if year is not None:
            groups = with_year(groups, year)
        title = (groups or hit.reading.groups)[0].title
        ids = tuple(i for g in groups for i in g.ids)
        out.append(Mention(title, ids, hit.start, hit.end, year))
    return out


def distinct(mentions: Iterable[Mention]) -> list[Mention]:
    """The first mention of each title (of each item, for one title that several items
    share and years tell apart), in order."""
    found: dict[tuple[str, tuple[str, ...]], Mention] = {}
    for m in mentions:
        found.setdefault((m.title, m.item_ids), m)
    return list(found.values())
