"""Hidden preference models, and the utility (0-100) they give each item.

A persona's `PreferenceModel` is what the customer really wants, over item attributes:
category (genre) and keyword weights, a preferred era and runtime, how much audience
rating matters, languages, favourite makers, and a price ceiling. `utility` is a pure,
deterministic function of (model, item): a weighted sum of bounded components mapped
linearly onto 0-100 and rounded to a half point, so stream suites store utilities that
anyone can recompute and scoring needs no LLM. Agents never see the model; the
simulated customer answers from it in words.
"""

from __future__ import annotations

from typing import Final

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


def utility(model: PreferenceModel, item: ChoiceItem) -> float:
    """The customer's utility for `item`, 0-100 in half points (50 is indifferent)."""
    raw = model.base + sum(model.components(item).values())
    value = max(0.0, min(100.0, 50.0 + UTILITY_SCALE * raw))
    return round(value * 2) / 2
