"""Stream suites over BIEL's released data: its products, categories, personas and scores.

`biel_streams(data, plan)` runs the stream generator over what `load_biel_data` read,
with BIEL's two rules in place of ours:

- choice sets (`biel_choice_set`, as BIEL's `get_products_by_category`): the category's
  products by id; when there are more than the set's size, `random.Random((seed +
  md5(category name) mod 2^31) mod 2^31).sample(products, size)`, sorted by id again;
- utilities (`ScoreTable`): the cached scores of BIEL's `persona_scores` table for the
  episode's persona, category and products. A (persona, category) pair is skipped when
  its best score in the choice set is below 60 (as BIEL skips it) or when a product of
  the set has no score (BIEL would score it with a model; a suite only holds fixed data).

Only (persona, category) pairs the cache covers are drawn: those with a score for every
product of the category, so any choice set of it is scored (BIEL's cache is sparse: it
holds the pairs its own runs scored). The tasks say `utility_source: llm`: the
utilities are data, not a preference model's. Streams are drawn as BIEL's seeds are
(`cross_stream` biel) unless the plan says otherwise: a sparse cache rarely covers
enough pairs for a customer never to meet a best item of theirs in two streams; and
their episodes are played as drawn (`episode_order` drawn), as BIEL's planner has them.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from taurec.catalog.builders.biel_data import BielData
from taurec.catalog.builders.biel_tables import ScoreKey
from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.choice_sets import CHOICE_SET_SIZE, Category
from taurec.catalog.personas import Persona
from taurec.tasks.stream.generator import (
    CrossStream,
    GenerationError,
    StreamPlan,
    generate_streams,
)
from taurec.tasks.stream.ordering import EpisodeOrder
from taurec.tasks.stream.task import MIN_BEST_UTILITY, StreamTask


def biel_seed(seed: int, category_name: str) -> int:
    """BIEL's sampling seed for a category: the seed plus the name's md5, mod 2^31."""
    digest = hashlib.md5(category_name.encode("utf-8"), usedforsecurity=False).hexdigest()
    return (seed + int(digest, 16) % 2**31) % 2**31


def biel_choice_set(category: Category, seed: int, size: int = CHOICE_SET_SIZE) -> list[str]:
    """The category's choice set as BIEL samples it (see the module docstring)."""
    ids = sorted(set(category.item_ids), key=int)
    if len(ids) <= size:
        return ids
    return sorted(random.Random(biel_seed(seed, category.name)).sample(ids, size), key=int)


@dataclass
class ScoreTable:
    """A `UtilityFn` over BIEL's cached scores; it counts the pairs it skips, and why."""

    scores: Mapping[ScoreKey, float]
    persona_numbers: Mapping[str, int]
    category_numbers: Mapping[str, int]
    below_best: set[tuple[str, str]] = field(default_factory=set)
    unscored: set[tuple[str, str]] = field(default_factory=set)

    def __call__(
        self, persona: Persona, category: Category, items: list[ChoiceItem]
    ) -> dict[str, float] | None:
        p, c = self.persona_numbers[persona.id], self.category_numbers[category.id]
        utilities = {}
        for item in items:
            score = self.scores.get((p, c, int(item.id)))
            if score is None:
                self.unscored.add((persona.id, category.id))
                return None
            utilities[item.id] = score
        if max(utilities.values()) < MIN_BEST_UTILITY:
            self.below_best.add((persona.id, category.id))
            return None
        return utilities

    def summary(self) -> str:
        n = len(self.below_best | self.unscored)
        return (
            f"skipped {n} drawn (persona, category) pair{'s' * (n != 1)}: "
            f"{len(self.below_best)} best score below {MIN_BEST_UTILITY:g}, "
            f"{len(self.unscored)} a product of the choice set without a score"
        )


@dataclass(frozen=True)
class BielStreams:
    tasks: list[StreamTask]
    summary: str  # one line: what was read, kept, pruned and skipped


def covered_pairs(data: BielData) -> dict[str, set[str]]:
    """Persona id -> the ids of the categories whose every product it has a score for."""
    scored: dict[tuple[int, int], set[int]] = {}
    for p, c, product in data.scores:
        scored.setdefault((p, c), set()).add(product)
    persona_ids = {n: pid for pid, n in data.persona_numbers.items()}
    products = {
        data.category_numbers[c.id]: (c.id, {int(i) for i in c.item_ids}) for c in data.categories
    }
    out: dict[str, set[str]] = {}
    for (p, c), have in scored.items():
        if c in products and p in persona_ids and products[c][1] <= have:
            out.setdefault(persona_ids[p], set()).add(products[c][0])
    return out


def biel_streams(data: BielData, plan: StreamPlan) -> BielStreams:
    """The plan's streams over BIEL's data; a `GenerationError` also says what was skipped."""
    if plan.cross_stream is None:
        plan = replace(plan, cross_stream=CrossStream.BIEL)
    if plan.episode_order is None:  # as BIEL's planner draws them
        plan = replace(plan, episode_order=EpisodeOrder.DRAWN)
    pairs = covered_pairs(data)
    categories = [c for c in data.categories if any(c.id in v for v in pairs.values())]
    personas = [p for p in data.personas if p.id in pairs]
    table = ScoreTable(data.scores, data.persona_numbers, data.category_numbers)
    covered = (
        f"{sum(len(v) for v in pairs.values())} (persona, category) pairs scored for every "
        f"product, over {len(personas)} personas and {len(categories)} categories"
    )
    if not pairs:
        raise GenerationError(
            f"no (persona, category) pair has a score for every product of the category; "
            f"expected persona_scores to cover whole categories ({data.summary()})"
        )
    try:
        tasks = generate_streams(
            data.items, personas, categories, plan, table, sampler=biel_choice_set, pairs=pairs
        )
    except GenerationError as exc:
        raise GenerationError(f"{exc} ({data.summary()}; {covered}; {table.summary()})") from None
    return BielStreams(tasks=tasks, summary=f"{data.summary()}; {covered}; {table.summary()}")
