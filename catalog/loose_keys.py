"""Near-miss title lookup: the loose title key closest to a span of text.

`fuzz.ratio` (rapidfuzz) is 100 * (1 - d / (m + n)) for an InDel distance d >= |m - n|,
so a key of length n can reach a cutoff c against a span of length m only when
|m - n| <= (1 - c / 100) * (m + n). Keys are grouped by length and only the groups in that
band are compared: the answer is the one `process.extractOne` over every key gives (the
best score; among equal scores, the earliest key), at a fraction of the comparisons when a
catalog holds a million titles. When the band holds a large share of the keys, one
`extractOne` over them all is faster (it raises its cutoff as it finds matches), so that
is what runs.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from rapidfuzz import fuzz, process


class LooseKeys:
    """Keys (in their given order) searchable for the closest one to a span."""

    def __init__(self, keys: Sequence[str], *, whole_share: float = 4.0) -> None:
        """Past 1/`whole_share` of the keys in a span's band, one search over every key
        runs (0: never)."""
        self._whole_share = whole_share
        lengths = np.fromiter(map(len, keys), np.int64, len(keys))
        order = np.argsort(lengths, kind="stable")  # by length, then by position
        grouped = np.asarray(keys, dtype=object)[order].tolist() if len(keys) else []
        ends = np.flatnonzero(np.diff(lengths[order])) + 1
        self._groups = [
            (int(lengths[order[a]]), grouped[a:b], order[a:b].tolist())
            for a, b in itertools.pairwise([0, *ends.tolist(), len(keys)])
            if b > a
        ]
        self._keys = keys
        self._n = len(keys)

    def __len__(self) -> int:
        return self._n

    def closest(self, span: str, cutoff: float) -> tuple[int, float] | None:
        """(position, score) of the key with the best `fuzz.ratio` to `span` at or above
        `cutoff` (the earliest such key among equals), or None."""
        m = len(span)
        slack = 1 - cutoff / 100
        # + 1: a margin for rounding
        band = [g for g in self._groups if abs(m - g[0]) <= slack * (m + g[0]) + 1]
        if self._whole_share and sum(len(g[1]) for g in band) * self._whole_share > self._n:
            whole = process.extractOne(span, self._keys, scorer=fuzz.ratio, score_cutoff=cutoff)
            return None if whole is None else (whole[2], whole[1])
        best: tuple[float, int] | None = None
        for _, group, at in band:
            hit = process.extractOne(span, group, scorer=fuzz.ratio, score_cutoff=cutoff)
            if hit is not None:
                candidate = (hit[1], -at[hit[2]])
                if best is None or candidate > best:
                    best = candidate
        return None if best is None else (-best[1], best[0])
