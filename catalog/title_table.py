"""The tables `TitleMatcher` looks titles and people up in, from items or a saved index.

A key is a title's tokens (`title_tokens`) or the tokens of another reading form of it
(catalog/title_forms.py: "The Usual Suspects" for "Usual Suspects, The (1995)"); looking
one up gives a `Reading`: the spelling the key reads and every title it names, each with
its items' ids and release years. Built from items in one pass that holds no item, or
opened over a catalog folder's saved title index (`taurec.catalog.title_index`): the two
give the same answers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from taurec.catalog.item import Item
from taurec.catalog.title_forms import reading_keys
from taurec.catalog.title_index import Reading, SavedTitles, TitleGroup
from taurec.catalog.tokens import title_tokens

Key = tuple[str, ...]


@dataclass(frozen=True)
class TitleTable:
    reading: Callable[[Key], Reading | None]
    #: whether a person in the catalog has this (two or more token) name
    is_name: Callable[[Key], bool]
    name_lens: list[int]
    #: the first token of every key
    first_words: frozenset[str]
    max_len: int
    #: the lengths (longest first) of the keys of two or more tokens that each pair of
    #: first tokens starts, and the one-token keys (None: not known, try every length)
    lens: dict[tuple[str, str], tuple[int, ...]] | None
    single: frozenset[str]

    @classmethod
    def of_items(cls, items: Iterable[Item]) -> TitleTable:
        groups: dict[Key, tuple[str, list[str], list[int]]] = {}
        forms: dict[Key, tuple[str, dict[Key, None]]] = {}
        names: set[Key] = set()
        for item in items:
            toks = title_tokens(item.title)
            if toks:
                group = groups.setdefault(toks, (item.title, [], []))
                group[1].append(item.id)
                group[2].append(item.year)
                for form, spelling in reading_keys(item.title):
                    forms.setdefault(form, (spelling, {}))[1][toks] = None
            for person in (*item.cast, item.director or ""):
                toks = title_tokens(person)
                if len(toks) > 1:
                    names.add(toks)
        made = {
            k: TitleGroup(title, tuple(ids), tuple(years))
            for k, (title, ids, years) in groups.items()
        }
        order = {k: n for n, k in enumerate(made)}  # the order of each title's first item
        readings = {k: Reading(g.title, (g,)) for k, g in made.items()}
        for form, (spelling, targets) in forms.items():
            own = [form] if form in made else []
            keys = sorted({*own, *targets}, key=order.__getitem__)
            readings[form] = Reading(
                made[form].title if own else spelling, tuple(made[k] for k in keys)
            )
        lens: dict[tuple[str, str], set[int]] = defaultdict(set)
        for toks in readings:
            if len(toks) > 1:
                lens[toks[0], toks[1]].add(len(toks))
        return cls(
            reading=readings.get,
            is_name=frozenset(names).__contains__,
            name_lens=sorted({len(n) for n in names}),
            first_words=frozenset(toks[0] for toks in readings),
            max_len=max((len(toks) for toks in readings), default=0),
            lens={pair: tuple(sorted(ns, reverse=True)) for pair, ns in lens.items()},
            single=frozenset(toks[0] for toks in readings if len(toks) == 1),
        )

    @classmethod
    def of_saved(cls, saved: SavedTitles) -> TitleTable:
        return cls(
            reading=saved.reading,
            is_name=saved.is_name,
            name_lens=saved.name_lens,
            first_words=saved.first_words,
            max_len=saved.max_len,
            lens=None,
            single=frozenset(),
        )
