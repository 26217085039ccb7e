"""Hidden preference models, and the utility (0-100) they give each item.

A persona's `PreferenceModel` is what the customer really wants, over item attributes:
category (genre) and keyword weights, a preferred era and runtime, how much audience
rating matters, languages, favourite makers, and a price ceiling. `utility` is a pure,
deterministic function of (model, item): a weighted sum of bounded components mapped
onto 0-100, so stream suites store utilities that anyone can recompute and scoring
needs no LLM. The sum may hold an idiosyncratic term: a taste for the title itself that
no attribute explains (as a person's scores have), `idiosyncrasy` × a number in [-1, 1]
hashed from the model's `seed` and the item id. Two curves:

- `linear` (the default): 50 + 25 × sum, clipped to 0-100, in half points;
- `logistic`: 100 × sigmoid(1.75 × sum) in tenths of a point, never clipped.

Fields left at their defaults (the linear curve, no idiosyncrasy, seed 0) are left out
of the JSON, so models written before the logistic curve keep their files and hashes.
Agents never see the model; the simulated customer answers from it in words.
"""

from __future__ import annotations

import hashlib
import math
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.choice_items import ChoiceItem

Weight = float
#: Years from the preferred one at which the era component reaches its minimum.
ERA_SPAN: Final = 25
#: Minutes from the ideal runtime at which the runtime component reaches its minimum.
RUNTIME_SPAN: Final = 45
#: The rating (0-10) that counts as neutral.
NEUTRAL_RATING: Final = 6.5
#: Points of utility per unit of the weighted sum (50 is neutral).
UTILITY_SCALE: Final = 25.0
#: How a weighted sum becomes a utility (see the module docstring).
Curve = Literal["linear", "logistic"]
#: Steepness of the logistic curve: a within-set spread like BIEL's (SD near 25).
LOGISTIC_SLOPE: Final = 1.75


class PreferenceModel(BaseModel):
    """One customer's hidden tastes. Weights are in [-1, 1] unless said otherwise."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    categories: dict[str, Weight] = Field(
        default_factory=dict, description="Genre or category name -> like (+) / dislike (-)."
    )
    keywords: dict[str, Weight] = Field(default_factory=dict, description="Themes or features.")
    year: int | None = Field(default=None, description="The era they prefer, as a year.")
    year_weight: float = Field(default=0.0, ge=0, le=1)
    runtime: int | None = Field(default=None, ge=0, description="Ideal length in minutes.")
    runtime_weight: float = Field(default=0.0, ge=0, le=1)
    rating_weight: float = Field(default=0.5, ge=0, le=1, description="How much acclaim matters.")
    languages: list[str] = Field(default_factory=list, description="Preferred; empty: any.")
    language_weight: float = Field(default=0.0, ge=0, le=1)
    makers: dict[str, Weight] = Field(default_factory=dict, description="Directors or brands.")
    price_ceiling: float | None = Field(default=None, gt=0, description="What they would pay.")
    price_weight: float = Field(default=0.0, ge=0, le=1)
    base: float = Field(default=0.0, ge=-2, le=2, description="General enthusiasm.")
    # left out of the JSON at their defaults: models (and tasks) written before them
    # keep their files and hashes
    curve: Curve = Field(
        default="linear",
        exclude_if=lambda v: v == "linear",
        description="'linear' (clipped, half points) or 'logistic' (tenths of a point).",
    )
    idiosyncrasy: float = Field(
        default=0.0,
        ge=0,
        le=2,
        exclude_if=lambda v: v == 0,
        description="Weight of a per-title taste that no attribute explains.",
    )
    seed: int = Field(
        default=0,
        ge=0,
        exclude_if=lambda v: v == 0,
        description="What the per-title taste is hashed from, with the item id.",
    )

    def components(self, item: ChoiceItem) -> dict[str, float]:
        """Each attribute's signed contribution to the weighted sum (absent ones are 0)."""
        out: dict[str, float] = {}
        out["categories"] = _clip(sum(self.categories.get(c, 0.0) for c in item.categories), 1.5)
        out["keywords"] = _clip(sum(self.keywords.get(k, 0.0) for k in item.keywords), 1.0)
        if self.year is not None and item.year is not None:
            out["era"] = self.year_weight * (
                1 - 2 * min(1.0, abs(item.year - self.year) / ERA_SPAN)
            )
        if self.runtime is not None and item.runtime is not None:
            gap = abs(item.runtime - self.runtime) / RUNTIME_SPAN
            out["runtime"] = self.runtime_weight * (1 - 2 * min(1.0, gap))
        if item.rating is not None:
            out["rating"] = self.rating_weight * _clip((item.rating - NEUTRAL_RATING) / 1.5, 1.0)
        if self.languages and item.language is not None:
            out["language"] = self.language_weight * (1 if item.language in self.languages else -1)
        if item.maker is not None:
            out["maker"] = self.makers.get(item.maker, 0.0)
        if self.price_ceiling is not None and item.price is not None:
            out["price"] = self.price_weight * (1 - 2 * min(1.0, item.price / self.price_ceiling))
        return out


def _clip(x: float, bound: float) -> float:
    return max(-bound, min(bound, x))


def idiosyncratic(seed: int, item_id: str) -> float:
    """A number in [-1, 1], fixed for (seed, item id) on every machine."""
    digest = hashlib.sha256(f"{seed}:{item_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**63 - 1.0


def utility(model: PreferenceModel, item: ChoiceItem) -> float:
    """The customer's utility for `item`, 0-100 (50 is indifferent): half points on the
    linear curve, tenths of a point on the logistic one."""
    raw = model.base + sum(model.components(item).values())
    if model.idiosyncrasy:
        raw += model.idiosyncrasy * idiosyncratic(model.seed, item.id)
    if model.curve == "logistic":
        return round(1000.0 / (1.0 + math.exp(-LOGISTIC_SLOPE * raw))) / 10
    value = max(0.0, min(100.0, 50.0 + UTILITY_SCALE * raw))
    return round(value * 2) / 2
