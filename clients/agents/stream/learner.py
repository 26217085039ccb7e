"""The learning reference agent: a Bayesian linear model of utility over item attributes,
updated from each episode's feedback and carried across the stream.

It is the positive control of the stream benchmark: it asks no questions, so whatever it
gains over the episodes comes from feedback alone. Each recommended item adds one
observation of the customer's utility for that item's attributes (categories,
keywords, era, length, rating, language, maker, price):

- regret feedback gives the chosen score exactly ("Chosen score: x, ...");
- stars give a coarse reading (stars/5 of a typical best score);
- the customer's words give a coarser one, by their tone;
- no feedback gives nothing (it then cannot learn, as it should not).

It recommends the item with the highest posterior mean plus an exploration bonus (a
multiple of the posterior sd, 0 by default), ties broken by a seeded jitter. Before any
feedback every item has the same mean, so its first pick is a seeded random one (a bonus
would pick the item it knows least about: the oldest, longest, most-themed, worse than
random on the built-in suite), and any later gain is learning.
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Any, Final

import numpy as np

from taurec.clients.agents.stream.play import Action, Dialogue

#: A typical best utility in a choice set (stars and tones are read relative to it).
TYPICAL_BEST: Final = 90.0
PRIOR_MEAN_BIAS: Final = 50.0
#: Prior sd of a weight, by feature family (utility points per unit of the feature).
PRIOR_SD: Final = {"bias": 15.0, "cat": 15.0, "kw": 10.0, "num": 12.0, "lang": 8.0, "maker": 8.0}
#: Noise sd of one observation, by feedback kind (coarser feedback, wider noise).
NOISE_SD: Final = {"regret": 6.0, "stars": 10.0, "persona": 14.0}
#: Posterior sds added to the mean when choosing (see the module docstring).
EXPLORATION: Final = 0.0
_CHOSEN = re.compile(r"Chosen score:\s*([0-9.]+)")
_STARS = re.compile(r"([1-5])(?: out of 5 stars| stars? out of 5)")
TONE_WORDS: Final = (
    ("perfect", 1.0),
    ("really like", 0.92),
    ("great pick", 0.92),
    ("very close", 0.92),
    ("okay", 0.72),
    ("fine", 0.72),
    ("doesn't fully click", 0.72),
    ("isn't for me", 0.45),
    ("disappointed", 0.45),
    ("doesn't suit", 0.45),
)


def features(item: dict[str, Any]) -> dict[str, float]:
    """The item's attributes as named numeric features."""
    out = {"bias": 1.0}
    for c in item.get("categories") or []:
        out[f"cat:{c}"] = 1.0
    for k in item.get("keywords") or []:
        out[f"kw:{k}"] = 1.0
    if item.get("year") is not None:
        z = (item["year"] - 2005) / 15
        out["num:year"], out["num:year2"] = z, z * z
    if item.get("runtime") is not None:
        z = (item["runtime"] - 110) / 30
        out["num:runtime"], out["num:runtime2"] = z, z * z
    if item.get("rating") is not None:
        out["num:rating"] = max(-2.0, min(2.0, (item["rating"] - 6.5) / 1.5))
    if item.get("language"):
        out[f"lang:{item['language']}"] = 1.0
    if item.get("maker"):
        out[f"maker:{item['maker']}"] = 1.0
    if item.get("price") is not None:
        out["num:price"] = item["price"] / 100
    return out


def reading(feedback: str | None) -> tuple[float, str] | None:
    """(observed utility, feedback kind) from a feedback text; None when it says nothing."""
    if not feedback:
        return None
    if m := _CHOSEN.search(feedback):
        return float(m.group(1)), "regret"
    if m := _STARS.search(feedback):
        return int(m.group(1)) / 5 * TYPICAL_BEST, "stars"
    text = feedback.lower()
    for words, share in TONE_WORDS:
        if words in text:
            return share * TYPICAL_BEST, "persona"
    return None


class BayesianStreamLearner:
    """Bayesian linear regression of utility on item features, across the stream."""

    def __init__(self, seed: int, task_id: str, trial: int, label: str = "learner") -> None:
        self.label = label
        self._key = f"{seed}:{task_id}:{trial}"
        self._observed: list[tuple[dict[str, float], float, float]] = []  # (x, y, noise sd)

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        return "recommend", self.choose(view)

    def scores(self, items: list[dict[str, Any]]) -> list[float]:
        """Posterior mean plus the exploration bonus, per item. Computed in the
        observations' space (n ≤ episodes), so its cost does not grow with the features."""
        feats = [features(i) for i in items]
        seen = [x for x, _, _ in self._observed]
        names = sorted({n for f in [*feats, *seen] for n in f})
        index = {n: k for k, n in enumerate(names)}

        def rows(dicts: list[dict[str, float]]) -> np.ndarray:
            out = np.zeros((len(dicts), len(names)))
            for r, f in enumerate(dicts):
                for n, value in f.items():
                    out[r, index[n]] = value
            return out

        prior_var = np.array([PRIOR_SD[n.split(":", 1)[0]] ** 2 for n in names])
        prior_mean = np.array([PRIOR_MEAN_BIAS if n == "bias" else 0.0 for n in names])
        z = rows(feats)
        mu = z @ prior_mean
        var = (z * z) @ prior_var
        if self._observed:
            x = rows(seen)
            y = np.array([obs for _, obs, _ in self._observed])
            noise = np.array([sd**2 for _, _, sd in self._observed])
            gram = (x * prior_var) @ x.T + np.diag(noise)  # (n, n)
            cross = (z * prior_var) @ x.T  # (items, n)
            solved = np.linalg.solve(gram, np.column_stack([y - x @ prior_mean, cross.T]))
            mu = mu + cross @ solved[:, 0]
            var = var - (cross * solved[:, 1:].T).sum(axis=1)
        sd = np.sqrt(np.maximum(var, 0.0))
        return [float(v) for v in mu + EXPLORATION * sd]

    def choose(self, view: dict[str, Any]) -> str:
        items = view["items"]
        digest = hashlib.sha256(f"{self._key}:{view.get('episode')}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        scored = [
            (s + rng.random() * 1e-6, str(i["id"]))
            for s, i in zip(self.scores(items), items, strict=True)
        ]
        return max(scored)[1]

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        seen = reading(feedback)
        if seen is None:
            return
        item = next(i for i in view["items"] if str(i["id"]) == item_id)
        y, kind = seen
        self._observed.append((features(item), y, NOISE_SD[kind]))
