"""A pool of customers: distinct people in natural language, each with hidden tastes.

`persona_pool(items, n, seed)` draws n personas over the vocabulary of `items`
(their categories, keywords, makers, years, runtimes, languages): each gets a life
(name, age, occupation, a habit), a `PreferenceModel`, and a description that names some
of those tastes and keeps the rest for the conversation to discover. Deterministic per
seed.

Two kinds of tastes, by the utility curve they are drawn for:

- `linear` (the default): a few genres and themes, acclaim weighing 0.4-1;
- `logistic`: strong tastes over many genres and themes, era and length, a small weight
  on acclaim (0.1-0.4) and a per-title idiosyncrasy, so that utilities within a choice
  set spread as BIEL's LLM scores do (a within-set SD near 25) and the best-rated item
  is no stand-in for the best one.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.preferences import Curve, PreferenceModel

FIRST_NAMES: Final = (
    "Amara", "Bruno", "Chloe", "Dev", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonah",
    "Kavya", "Luis", "Mei", "Nikolai", "Olu", "Priya", "Quinn", "Rosa", "Sami", "Tomas",
    "Uma", "Viktor", "Wren", "Ximena", "Yusuf", "Zoe", "Aiden", "Beatriz", "Cyrus", "Dana",
)  # fmt: skip
OCCUPATIONS: Final = (
    "a night-shift nurse", "a high-school chemistry teacher", "a retired postal worker",
    "a freelance graphic designer", "a long-haul truck driver", "a graduate student in "
    "linguistics", "a pastry chef", "a software tester", "a small-town librarian",
    "a paramedic", "a wedding photographer", "a marine biologist", "a bus mechanic",
    "a hospice volunteer", "a bookkeeper at a family firm", "a yoga instructor",
    "a stay-at-home parent of twins", "an architect", "a city council clerk",
    "a semi-professional cyclist",
)  # fmt: skip
AGES: Final = ("in their early twenties", "in their thirties", "in their forties",
               "in their fifties", "in their sixties", "in their seventies")  # fmt: skip
HABITS: Final = (
    "watches something most evenings to wind down",
    "saves films for long weekend afternoons",
    "picks the family movie on Fridays",
    "watches on the train with headphones",
    "hosts a monthly movie night for neighbours",
    "falls asleep if a film drags",
    "loves talking films over afterwards",
    "rarely finishes anything that feels predictable",
)


class Persona(BaseModel):
    """A customer: who they are in words, and (hidden) what they like."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[A-Za-z0-9_.:-]+$")
    description: str = Field(min_length=1, description="Who they are, in natural language.")
    preferences: PreferenceModel | None = Field(
        default=None,
        description="The hidden preference model; None when utilities come from elsewhere "
        "(LLM-scored data).",
    )


def _vocabulary(items: Sequence[ChoiceItem], field: str, min_count: int) -> list[str]:
    counts: Counter[str] = Counter()
    for item in items:
        value = getattr(item, field)
        counts.update(value if isinstance(value, list) else [value] if value else [])
    return sorted(v for v, n in counts.items() if n >= min_count)


def _preferences(rng: random.Random, items: Sequence[ChoiceItem]) -> PreferenceModel:
    categories = _vocabulary(items, "categories", 5)
    keywords = _vocabulary(items, "keywords", 5)
    makers = _vocabulary(items, "maker", 2)
    years = sorted(i.year for i in items if i.year is not None)
    runtimes = sorted(i.runtime for i in items if i.runtime is not None)
    picked = rng.sample(categories, min(len(categories), 5))
    cat_weights = {c: round(rng.uniform(0.5, 1.0), 2) for c in picked[:3]}
    cat_weights |= {c: -round(rng.uniform(0.5, 1.0), 2) for c in picked[3:]}
    picked = rng.sample(keywords, min(len(keywords), 4))
    kw_weights = {k: round(rng.uniform(0.3, 0.7), 2) for k in picked[:3]}
    kw_weights |= {k: -round(rng.uniform(0.3, 0.7), 2) for k in picked[3:]}
    languages = sorted({i.language for i in items if i.language})
    english_only = bool(languages) and rng.random() < 0.4
    favourite = {rng.choice(makers): 0.6} if makers and rng.random() < 0.5 else {}
    prices = sorted(i.price for i in items if i.price is not None)
    return PreferenceModel(
        categories=cat_weights,
        keywords=kw_weights,
        year=rng.choice(years) if years else None,
        year_weight=round(rng.uniform(0.0, 0.6), 2),
        runtime=rng.choice(runtimes) if runtimes else None,
        runtime_weight=round(rng.uniform(0.0, 0.5), 2),
        rating_weight=round(rng.uniform(0.4, 1.0), 2),
        languages=["en"] if english_only else [],
        language_weight=0.5 if english_only else 0.0,
        makers=favourite,
        price_ceiling=prices[len(prices) // 2] * 1.5 if prices else None,
        price_weight=round(rng.uniform(0.2, 0.6), 2) if prices else 0.0,
        base=round(rng.uniform(-0.2, 0.3), 2),
    )


def _rounded(rng: random.Random, low: float, high: float) -> float:
    return round(rng.uniform(low, high), 2)


def _strong_preferences(rng: random.Random, items: Sequence[ChoiceItem]) -> PreferenceModel:
    """Tastes for the logistic curve (see the module docstring)."""
    categories = _vocabulary(items, "categories", 5)
    picked = rng.sample(categories, min(len(categories), 8))
    liked = sorted(((c, _rounded(rng, 0.3, 1.0)) for c in picked[:4]), key=lambda cw: -cw[1])
    disliked = sorted(((c, -_rounded(rng, 0.3, 1.0)) for c in picked[4:]), key=lambda cw: -cw[1])
    keywords = _vocabulary(items, "keywords", 2)
    kw_weights = {
        k: rng.choice((1, -1)) * _rounded(rng, 0.3, 0.9)
        for k in rng.sample(keywords, min(len(keywords), 30))
    }
    makers = _vocabulary(items, "maker", 2)
    maker_weights = {
        m: rng.choice((1, -1)) * _rounded(rng, 0.5, 1.0)
        for m in rng.sample(makers, min(len(makers), 2))
    }
    years = sorted(i.year for i in items if i.year is not None)
    runtimes = sorted(i.runtime for i in items if i.runtime is not None)
    english_only = any(i.language for i in items) and rng.random() < 0.3
    prices = sorted(i.price for i in items if i.price is not None)
    return PreferenceModel(
        categories=dict(liked + disliked),  # the strongest like first, the strongest dislike last
        keywords=kw_weights,
        year=rng.choice(years) if years else None,
        year_weight=_rounded(rng, 0.4, 1.0) if years else 0.0,
        runtime=rng.choice(runtimes) if runtimes else None,
        runtime_weight=_rounded(rng, 0.3, 0.9) if runtimes else 0.0,
        rating_weight=_rounded(rng, 0.1, 0.4),
        languages=["en"] if english_only else [],
        language_weight=_rounded(rng, 0.3, 0.7) if english_only else 0.0,
        makers=maker_weights,
        price_ceiling=prices[len(prices) // 2] * 1.5 if prices else None,
        price_weight=_rounded(rng, 0.2, 0.6) if prices else 0.0,
        base=_rounded(rng, -0.5, 0.3),
        curve="logistic",
        idiosyncrasy=_rounded(rng, 0.3, 0.7),
        seed=rng.randrange(1, 2**31),
    )


def describe(rng: random.Random, name: str, prefs: PreferenceModel) -> str:
    """The persona in words: a life, and one like and one dislike (the rest stays hidden)."""
    likes = [c for c, w in prefs.categories.items() if w > 0]
    dislikes = [c for c, w in prefs.categories.items() if w < 0]
    parts = [f"{name} is {rng.choice(OCCUPATIONS)}, {rng.choice(AGES)}, who {rng.choice(HABITS)}."]
    if likes:
        parts.append(f"Friends know {name} has a soft spot for {likes[0].lower()}.")
    if dislikes:
        parts.append(f"{name} has little patience for {dislikes[-1].lower()}.")
    if prefs.languages:
        parts.append("Subtitles are a chore for them.")
    themes = [k for k, w in prefs.keywords.items() if w > 0]
    if prefs.curve == "logistic" and themes:
        parts.append(f"A story with {themes[0].lower()} in it tends to win {name} over.")
    return " ".join(parts)


def persona_pool(
    items: Sequence[ChoiceItem], n: int, seed: int, *, curve: Curve = "linear"
) -> list[Persona]:
    """n distinct personas with preference models over the vocabulary of `items`, with the
    tastes drawn for `curve` (see the module docstring)."""
    if n < 1:
        raise ValueError(f"a persona pool of {n}; expected at least 1")
    rng = random.Random(f"personas:{seed}")
    names = rng.sample(FIRST_NAMES, min(n, len(FIRST_NAMES)))
    out = []
    for k in range(n):
        name = names[k % len(names)] + ("" if k < len(names) else f" {chr(65 + k // len(names))}.")
        prefs = _preferences(rng, items) if curve == "linear" else _strong_preferences(rng, items)
        out.append(
            Persona(id=f"p{k:03d}", description=describe(rng, name, prefs), preferences=prefs)
        )
    return out
