"""Generating stream suites, and the checks a stream task must pass past its schema.

`generate_streams` draws, per setting, `n` streams of `episodes` episodes over a pool of
choice items: one persona (variable_category), one category (variable_persona) or both
varying (variable_settings). As BIEL's planner does, what varies is drawn without
replacement within a stream: no category repeats in a variable_category stream, no
persona in a variable_persona stream, and neither in a variable_settings stream. Each
episode's choice set is sampled with the stream's seed and the category's hash (the
`ChoiceSetSampler`; BIEL's own rule is another sampler), its utilities computed from the
persona's preference model or given by another `UtilityFn`; as BIEL does, a (persona,
category) pair whose best utility is below 60 is skipped and another drawn.
Deterministic per seed.

Each stream's episodes are then played in the order `StreamPlan.episode_order` says
(ordering.py): by default reordered so that a random pick's expected regret has no
trend along the stream (`balanced`), or as drawn (`drawn`, BIEL's; the default over
BIEL's released data).

Across streams (`StreamPlan.cross_stream`, see tasks/stream/leaks.py): by default
(`isolated`) an episode is drawn again when its customer met one of its best items as a
best item in an earlier stream, whose feedback would give the answer away to a contestant
that keeps state across streams, and a suite that still has one is refused; `distinct`
also gives each stream customers no earlier stream had; `biel` draws every stream on its
own, as BIEL's planner draws its seeds (the default over BIEL's released data, whose
score cache covers too few pairs to isolate its streams: biel_streams.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final

from taurec.catalog.choice_items import ChoiceItem, from_movie
from taurec.catalog.choice_sets import (
    CHOICE_SET_SIZE,
    Category,
    movie_categories,
    sample_choice_set,
)
from taurec.catalog.llm_utilities import LLMUtilityScorer
from taurec.catalog.personas import Persona, persona_pool
from taurec.catalog.preferences import Curve, utility
from taurec.catalog.store import Catalog
from taurec.tasks.stream.leaks import BestIndex, stream_leaks
from taurec.tasks.stream.ordering import EpisodeOrder, balanced
from taurec.tasks.stream.task import (
    DEFAULT_EPISODES,
    MIN_BEST_UTILITY,
    FeedbackKind,
    StreamEpisodeSpec,
    StreamSetting,
    StreamTask,
    UtilitySource,
)

#: Draws tried for one episode before the generator gives up.
MAX_DRAWS: Final = 200


class GenerationError(ValueError):
    """The inputs cannot give the streams asked for (the message says what is short)."""


class CrossStream(StrEnum):
    """What one stream may share with another (see the module docstring)."""

    ISOLATED = "isolated"  # no customer meets a best item of theirs in two streams
    DISTINCT = "distinct"  # no customer in two streams
    BIEL = "biel"  # each stream drawn on its own, as BIEL's seeds are


@dataclass(frozen=True)
class StreamPlan:
    """What to generate: settings × n streams, each with these episodes and feedback."""

    settings: tuple[StreamSetting, ...] = tuple(StreamSetting)
    n: int = 10
    episodes: int = DEFAULT_EPISODES
    feedback: tuple[FeedbackKind, ...] = (FeedbackKind.REGRET,)
    choice_set_size: int = CHOICE_SET_SIZE
    seed: int = 0
    id_prefix: str = "stream"
    #: None: the source's default (isolated; biel over BIEL's released data).
    cross_stream: CrossStream | None = None
    #: None: the source's default (balanced; drawn over BIEL's released data).
    episode_order: EpisodeOrder | None = None


#: Utilities of a choice set for a persona, or None to skip the pair (best below 60).
UtilityFn = Callable[[Persona, Category, list[ChoiceItem]], dict[str, float] | None]
#: The choice set of a category for a stream seed: item ids, in shown order.
ChoiceSetSampler = Callable[[Category, int, int], list[str]]


def model_utilities(
    persona: Persona, category: Category, items: list[ChoiceItem]
) -> dict[str, float] | None:
    """Utilities from the persona's preference model (None when the best is below 60)."""
    prefs = persona.preferences
    if prefs is None:
        raise GenerationError(f"persona {persona.id!r} has no preference model to score with")
    utilities = {i.id: utility(prefs, i) for i in items}
    return utilities if max(utilities.values()) >= MIN_BEST_UTILITY else None


def llm_utilities(scorer: LLMUtilityScorer) -> UtilityFn:
    """Utilities from language models (see catalog/llm_utilities.py)."""

    def score(
        persona: Persona, category: Category, items: list[ChoiceItem]
    ) -> dict[str, float] | None:
        return scorer.score(persona.description, category.name, items)

    return score


def _episode(
    persona: Persona,
    category: Category,
    items: dict[str, ChoiceItem],
    seed: int,
    size: int,
    score: UtilityFn,
    sampler: ChoiceSetSampler,
) -> StreamEpisodeSpec | None:
    ids = sampler(category, seed, size)
    utilities = score(persona, category, [items[i] for i in ids])
    if utilities is None:
        return None
    return StreamEpisodeSpec(
        persona_id=persona.id,
        category_id=category.id,
        category_name=category.name,
        item_ids=ids,
        utilities=utilities,
    )


@dataclass(frozen=True)
class _Pairing:
    """Which personas and categories may meet in an episode (all of them by default; with
    `pairs`, only the ones given: e.g. the pairs a score cache covers)."""

    personas: Sequence[Persona]
    categories: Sequence[Category]
    pairs: Mapping[str, Collection[str]] | None

    def without(self, taken: Collection[str]) -> _Pairing:
        """The pairing with the personas `taken` left out."""
        return replace(self, personas=[p for p in self.personas if p.id not in taken])

    def categories_of(self, persona: Persona) -> Sequence[Category]:
        if self.pairs is None:
            return self.categories
        allowed = self.pairs.get(persona.id, ())
        return [c for c in self.categories if c.id in allowed]

    def personas_of(self, category: Category) -> Sequence[Persona]:
        if self.pairs is None:
            return self.personas
        return [p for p in self.personas if category.id in self.pairs.get(p.id, ())]

    def fixed(
        self, setting: StreamSetting, rng: random.Random, episodes: int
    ) -> tuple[Persona, Category]:
        """The stream's fixed persona and category (one of them is used, by setting); with
        pairs, one that meets enough of the other to fill the stream."""
        persona, category = rng.choice(self.personas), rng.choice(self.categories)
        if self.pairs is None:
            return persona, category
        if setting is StreamSetting.VARIABLE_CATEGORY:
            able = [p for p in self.personas if len(self.categories_of(p)) >= episodes]
            if not able:
                raise GenerationError(
                    f"no persona is paired with {episodes} categories; expected one for a "
                    f"variable_category stream of {episodes} episodes"
                )
            persona = rng.choice(able)
        if setting is StreamSetting.VARIABLE_PERSONA:
            able_c = [c for c in self.categories if len(self.personas_of(c)) >= episodes]
            if not able_c:
                raise GenerationError(
                    f"no category is paired with {episodes} personas; expected one for a "
                    f"variable_persona stream of {episodes} episodes"
                )
            category = rng.choice(able_c)
        return persona, category

    def draw(
        self, setting: StreamSetting, rng: random.Random, persona: Persona, category: Category
    ) -> tuple[Persona, Category] | None:
        """One episode's (persona, category) given the stream's fixed ones."""
        if setting is StreamSetting.VARIABLE_PERSONA:
            options = self.personas_of(category)
            return (rng.choice(options), category) if options else None
        if setting is StreamSetting.VARIABLE_SETTINGS:
            persona = rng.choice(self.personas)
        cats = self.categories_of(persona)
        return (persona, rng.choice(cats)) if cats else None


def _stream(
    setting: StreamSetting,
    k: int,
    plan: StreamPlan,
    pairing: _Pairing,
    items: dict[str, ChoiceItem],
    feedback: FeedbackKind,
    score: UtilityFn,
    sampler: ChoiceSetSampler,
    earlier: BestIndex | None,
) -> StreamTask:
    """Stream k of `setting`; with `earlier`, no episode shares a best item of its customer
    with the streams indexed there."""
    seed = plan.seed * 1_000_003 + k
    rng = random.Random(f"stream:{plan.seed}:{setting.value}:{k}")
    fixed_persona, fixed_category = pairing.fixed(setting, rng, plan.episodes)
    episodes: list[StreamEpisodeSpec] = []
    used: set[str] = set()  # what varies is drawn without replacement (as BIEL's planner)
    for _draw in range(MAX_DRAWS):
        if len(episodes) == plan.episodes:
            break
        drawn = pairing.draw(setting, rng, fixed_persona, fixed_category)
        if drawn is None:
            continue
        persona, category = drawn
        varying = {
            StreamSetting.VARIABLE_CATEGORY: {f"c:{category.id}"},
            StreamSetting.VARIABLE_PERSONA: {f"p:{persona.id}"},
            StreamSetting.VARIABLE_SETTINGS: {f"c:{category.id}", f"p:{persona.id}"},
        }[setting]
        if varying & used:
            continue
        episode = _episode(persona, category, items, seed, plan.choice_set_size, score, sampler)
        if episode is None or (earlier is not None and earlier.clash(episode) is not None):
            continue
        used |= varying
        episodes.append(episode)
    else:
        raise GenerationError(
            f"{setting.value} stream {k}: found {len(episodes)} of {plan.episodes} episodes "
            f"whose best utility reaches {MIN_BEST_UTILITY:g} in {MAX_DRAWS} draws; expected "
            f"more personas or categories{_CROSS_HINT.get(plan.cross_stream or CrossStream.ISOLATED, '')}"
        )
    if len(episodes) < plan.episodes:
        raise GenerationError(f"{setting.value} stream {k}: too few episodes")
    if plan.episode_order is not EpisodeOrder.DRAWN:
        episodes = balanced(episodes, f"{plan.seed}:{setting.value}:{k}")
    personas = pairing.personas
    shown = sorted({i for e in episodes for i in e.item_ids})
    persona_ids = {e.persona_id for e in episodes}
    return StreamTask(
        id=f"{plan.id_prefix}-{setting.value.replace('_', '-')}-{feedback.value}-{k:03d}",
        setting=setting,
        feedback=feedback,
        utility_source=UtilitySource.PREFERENCE_MODEL
        if score is model_utilities
        else UtilitySource.LLM,
        personas=[p for p in personas if p.id in persona_ids],
        items=[items[i] for i in shown],
        episodes=episodes,
    )


def generate_streams(
    items: Iterable[ChoiceItem],
    personas: Sequence[Persona],
    categories: Sequence[Category],
    plan: StreamPlan,
    score: UtilityFn = model_utilities,
    sampler: ChoiceSetSampler = sample_choice_set,
    pairs: Mapping[str, Collection[str]] | None = None,
) -> list[StreamTask]:
    """plan.n streams per setting, cycling through plan.feedback. Utilities come from the
    personas' preference models unless `score` says otherwise (e.g. `llm_utilities`);
    choice sets from `sample_choice_set` unless `sampler` says otherwise. `pairs` (persona
    id -> category ids) limits the (persona, category) pairs drawn, e.g. to those a score
    cache covers; by default any persona meets any category."""
    plan = replace(
        plan,
        cross_stream=plan.cross_stream or CrossStream.ISOLATED,
        episode_order=plan.episode_order or EpisodeOrder.BALANCED,
    )
    by_id = {i.id: i for i in items}
    if not categories:
        raise GenerationError("no categories; expected at least one with 15 or more items")
    if not personas:
        raise GenerationError("no personas; expected a persona pool")
    missing = next((i for c in categories for i in c.item_ids if i not in by_id), None)
    if missing is not None:
        raise GenerationError(f"a category names item {missing!r}, which is not among the items")
    pairing = _Pairing(personas, categories, pairs)
    out: list[StreamTask] = []
    earlier, taken = BestIndex(), set[str]()
    isolate = plan.cross_stream is not CrossStream.BIEL
    for setting in plan.settings:
        for k in range(plan.n):
            feedback = plan.feedback[k % len(plan.feedback)]
            pool = pairing.without(taken) if plan.cross_stream is CrossStream.DISTINCT else pairing
            if not pool.personas:
                raise GenerationError(
                    f"{setting.value} stream {k}: every persona is in an earlier stream; "
                    f"--cross-stream distinct needs more personas than the {len(taken)} used"
                )
            task = _stream(
                setting,
                k,
                plan,
                pool,
                by_id,
                feedback,
                score,
                sampler,
                earlier if isolate else None,
            )
            earlier.add(task)
            taken |= task.persona_ids
            out.append(task)
    if isolate and (hard := stream_leaks(out).hard):
        task_id, found = next(iter(hard.items()))
        raise GenerationError(f"stream {task_id!r}: {found[0]}; refusing a suite that leaks it")
    return out


#: Appended to "expected more personas or categories" under each cross-stream mode.
_CROSS_HINT: Final = {
    CrossStream.ISOLATED: " (--cross-stream isolated redraws an episode whose customer met "
    "its best item in an earlier stream; --cross-stream biel does not)",
    CrossStream.DISTINCT: " (--cross-stream distinct gives each stream customers of its own: "
    "more --personas, or --cross-stream isolated)",
}


#: The shipped suite `stream:builtin`: 40 streams (BIEL's 40 seeds) of 10 episodes per
#: setting over the built-in catalog, feedback cycling regret, stars, persona, and 120
#: personas whose utilities follow the logistic curve (a within-set spread like BIEL's).
#: Its streams are drawn `isolated`, so no stream's feedback gives another's answer away;
#: the plan with `cross_stream` biel is BIEL's own draw (the suite shipped before, leaky).
BUILTIN_PLAN: Final = StreamPlan(
    n=40,
    feedback=(FeedbackKind.REGRET, FeedbackKind.STARS, FeedbackKind.PERSONA),
    seed=0,
    cross_stream=CrossStream.ISOLATED,
)
BUILTIN_PERSONAS: Final = 120
BUILTIN_CURVE: Final[Curve] = "logistic"


def movie_streams(
    catalog: Catalog, plan: StreamPlan, n_personas: int, curve: Curve = BUILTIN_CURVE
) -> list[StreamTask]:
    """Streams over a movie catalog: its genre, genre-era and theme categories and a pool
    of `n_personas` personas drawn with the plan's seed, with tastes for `curve`."""
    items = [from_movie(i) for i in catalog.items]
    personas = persona_pool(items, n_personas, plan.seed, curve=curve)
    return generate_streams(items, personas, movie_categories(items), plan)
