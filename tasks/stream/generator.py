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
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
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
) -> StreamTask:
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
        if episode is None:
            continue
        used |= varying
        episodes.append(episode)
    else:
        raise GenerationError(
            f"{setting.value} stream {k}: found {len(episodes)} of {plan.episodes} episodes "
            f"whose best utility reaches {MIN_BEST_UTILITY:g} in {MAX_DRAWS} draws; expected "
            "more personas or categories"
        )
    if len(episodes) < plan.episodes:
        raise GenerationError(f"{setting.value} stream {k}: too few episodes")
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
    by_id = {i.id: i for i in items}
    if not categories:
        raise GenerationError("no categories; expected at least one with 15 or more items")
    if not personas:
        raise GenerationError("no personas; expected a persona pool")
    missing = next((i for c in categories for i in c.item_ids if i not in by_id), None)
    if missing is not None:
        raise GenerationError(f"a category names item {missing!r}, which is not among the items")
    pairing = _Pairing(personas, categories, pairs)
    out = []
    for setting in plan.settings:
        for k in range(plan.n):
            feedback = plan.feedback[k % len(plan.feedback)]
            out.append(_stream(setting, k, plan, pairing, by_id, feedback, score, sampler))
    return out


#: The shipped suite `stream:builtin`: 40 streams (BIEL's 40 seeds) of 10 episodes per
#: setting over the built-in catalog, feedback cycling regret, stars, persona, and 120
#: personas whose utilities follow the logistic curve (a within-set spread like BIEL's).
BUILTIN_PLAN: Final = StreamPlan(
    n=40,
    feedback=(FeedbackKind.REGRET, FeedbackKind.STARS, FeedbackKind.PERSONA),
    seed=0,
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
