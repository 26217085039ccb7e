"""The order a generated stream plays its episodes in.

BIEL plays a stream's episodes in the order its planner draws them (`drawn`). Drawn that
way, a suite carries a trend of its own: the realised episodes happen to get easier or
harder along the stream, and "improves" (the slope of regret over episodes) then fires
for an agent that picks at random. The built-in suite drawn as BIEL does had one in
variable_category: a random pick's expected regret fell 0.335 per episode, and random
"improved" in 11.5% of replications where 2.5% is nominal.

`balanced` (the default) keeps each stream's episodes and reorders them: of `TRIES`
seeded shuffles, the one whose expected regret for a uniformly random pick (the best
utility minus the mean, per episode) has the least slope over the episodes, ties to the
first. The streams keep what they hold, so only the order, and so the task hashes,
change. A slope computed over a stream's own episodes is then near 0 (within
`MAX_SLOPE` when any of the shuffles is), in every stream and so in every setting.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from enum import StrEnum
from statistics import fmean
from typing import Final

from taurec.tasks.stream.task import StreamEpisodeSpec

#: Seeded shuffles tried per stream.
TRIES: Final = 2000
#: A slope (points per episode) within which a shuffle is taken without trying further.
MAX_SLOPE: Final = 0.01


class EpisodeOrder(StrEnum):
    BALANCED = "balanced"  # reordered so a random pick's expected regret has no trend
    DRAWN = "drawn"  # as drawn (BIEL's planner)


def random_regret(episode: StreamEpisodeSpec) -> float:
    """A uniformly random pick's expected regret: the best utility minus the mean."""
    return episode.best - fmean(episode.utilities.values())


def trend(values: Sequence[float]) -> float:
    """The least-squares slope of `values` over positions 1, 2, ... (0 for fewer than 2)."""
    n = len(values)
    if n < 2:
        return 0.0
    mid = (n + 1) / 2
    mean = fmean(values)
    num = sum((k + 1 - mid) * (v - mean) for k, v in enumerate(values))
    return num / sum((k + 1 - mid) ** 2 for k in range(n))


def balanced(episodes: Sequence[StreamEpisodeSpec], seed: str) -> list[StreamEpisodeSpec]:
    """The episodes reordered so a random pick's expected regret has the least trend
    (see the module docstring); deterministic per `seed`."""
    out = list(episodes)
    if len(out) < 3:
        return out
    values = [random_regret(e) for e in out]
    rng = random.Random(f"episode-order:{seed}")
    order = list(range(len(out)))
    best, best_slope = list(order), abs(trend(values))
    for _ in range(TRIES):
        if best_slope <= MAX_SLOPE:
            break
        rng.shuffle(order)
        slope = abs(trend([values[k] for k in order]))
        if slope < best_slope:
            best, best_slope = list(order), slope
    return [out[k] for k in best]
