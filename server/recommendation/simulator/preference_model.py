"""The agenda user's preference model (UserSimCRS): how much the user likes an item or a
slot value, in [-1, 1], from the user's rated watch history.

Ratings are rescaled as UserSimCRS does for its 0.5-5 star scale, `2(r - 0.5)/4.5 - 1`,
after halving ours (0-10), and clipped to [-1, 1]. A slot value's preference is the mean
over the rated items that have it; a value or item the history says nothing about gets
UserSimCRS's "simple" preference: a memoised coin of +1 or -1, seeded per episode.
Like above +0.25, dislike below -0.25.
"""

from __future__ import annotations

import random
from statistics import fmean
from typing import Final

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.task import UserContext

LIKE: Final = 0.25


def rescale(rating: float) -> float:
    """A 0-10 rating as a preference in [-1, 1]."""
    return max(-1.0, min(1.0, 2 * (rating / 2 - 0.5) / 4.5 - 1))


def _values(item: Item, field: str) -> list[str]:
    v = getattr(item, field, None)
    if isinstance(v, list):
        return [str(x).casefold() for x in v]
    return [] if v is None else [str(v).casefold()]


class PreferenceModel:
    def __init__(self, user: UserContext, catalog: Catalog, seed: int) -> None:
        self._rng = random.Random(seed)
        self._coins: dict[str, float] = {}
        self.ratings: dict[str, float] = {
            w.item_id: rescale(w.rating) for w in user.watch_history if w.rating is not None
        }
        self._rated = [(it, p) for i, p in self.ratings.items() if (it := catalog.get(i))]

    def _coin(self, key: str) -> float:
        if key not in self._coins:
            self._coins[key] = self._rng.choice((-1.0, 1.0))
        return self._coins[key]

    def item(self, item_id: str) -> float:
        return self.ratings.get(item_id, self._coin(f"item:{item_id}"))

    def value(self, field: str, value: str) -> float:
        """Preference for items whose `field` has `value` (e.g. genres = 'Drama')."""
        key = value.casefold()
        known = [p for it, p in self._rated if key in _values(it, field)]
        return fmean(known) if known else self._coin(f"{field}:{key}")

    def liked_values(self, field: str) -> list[str]:
        """Values of `field` in the rated history the user likes, best first."""
        seen = {v for it, _ in self._rated for v in _values(it, field)}
        liked = [(self.value(field, v), v) for v in sorted(seen)]
        return [v for p, v in sorted(liked, key=lambda x: -x[0]) if p > LIKE]


def verdict(preference: float) -> str:
    """'like', 'dislike' or 'neutral' at the UserSimCRS threshold."""
    return "like" if preference > LIKE else "dislike" if preference < -LIKE else "neutral"
