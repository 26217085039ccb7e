"""Bootstrap intervals of many columns at once (`bootstrap_cis`): the same intervals, bit
for bit, as one resampling of the whole matrix per column gives, drawn a few rows at a
time so that memory stays flat."""

from __future__ import annotations

import numpy as np
import pytest

from taurec.evaluator import passk
from taurec.evaluator.aggregate import means_with_ci
from taurec.evaluator.passk import bootstrap_ci, bootstrap_cis


def _whole_matrix(values: list[float], seed: int, resamples: int = 2000) -> tuple[float, float]:
    """The percentile interval from one (resamples x n) matrix of draws."""
    v = np.asarray(values, dtype=float)
    idx = np.random.default_rng(seed).integers(0, v.size, size=(resamples, v.size))
    alpha = (1 - 0.95) / 2  # as bootstrap_ci computes it: 0.025 and a little
    lo, hi = np.quantile(v[idx].mean(axis=1), [alpha, 1 - alpha])
    return float(lo), float(hi)


@pytest.mark.parametrize("n", [2, 60, 600, 3001])
def test_columns_drawn_in_pieces_give_the_whole_matrixs_intervals(n):
    """Past 524 values the 2,000 resamples are drawn in pieces (the last one short)."""
    assert (n > 524) == (passk.DRAWN_AT_ONCE // n < 2000)
    rng = np.random.default_rng(n)
    columns = [
        (rng.random(n) < 0.4).astype(float).tolist(),
        (1 / np.log2(rng.integers(2, 12, n))).tolist(),
        rng.choice([-1.0, -0.5, 0.25, 1.1], n).tolist(),
    ]
    assert bootstrap_cis(columns, seed=5) == [_whole_matrix(c, 5) for c in columns]


def test_one_column_is_bootstrap_ci():
    values = [0.0, 1.0, 1.0, 0.5, 0.25]
    assert bootstrap_cis([values], seed=2) == [bootstrap_ci(values, seed=2)]
    assert bootstrap_ci(values, seed=2) == _whole_matrix(values, 2)


def test_no_value_and_one_value_give_nan_and_a_point():
    nan = bootstrap_cis([[], []])
    assert len(nan) == 2 and all(np.isnan(lo) and np.isnan(hi) for lo, hi in nan)
    assert bootstrap_cis([[0.5], [2.0]]) == [(0.5, 0.5), (2.0, 2.0)]


def test_means_with_ci_gives_each_metric_its_own_interval_whatever_its_length():
    values = {"a": [0.0, 1.0, 1.0], "b": [0.2, 0.4, 0.9], "c": [1.0, 0.0], "d": []}
    means, cis = means_with_ci(values, seed=1)
    assert list(cis) == list(values)
    for name in ("a", "b", "c"):
        assert cis[name] == list(_whole_matrix(values[name], 1))
    assert means["d"] is None and all(np.isnan(x) for x in cis["d"])


def test_pass_k_intervals_drawn_in_pieces_are_the_whole_matrixs_up_to_rounding():
    """Past 524 tasks the multinomial draws come a few rows at a time; the matrix product
    of each piece may round the last bit otherwise, never more."""
    rng = np.random.default_rng(0)
    counts = {f"t{i}": (int(rng.integers(0, 4)), 3) for i in range(600)}
    per_task = [c / n for c, n in counts.values()]
    draws = np.random.default_rng(1).multinomial(600, np.full(600, 1 / 600), size=2000)
    whole = np.quantile(draws @ np.asarray(per_task) / 600, [0.025, 0.975])
    _, (lo, hi) = passk.pass_k_with_ci(counts)[1]
    assert (lo, hi) == pytest.approx(tuple(whole), abs=1e-12)
