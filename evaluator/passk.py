"""pass^k and its bootstrap confidence intervals.

pass^k for one task with n trials of which c passed is C(c,k)/C(n,k): the chance that k
trials drawn without replacement all pass. A suite's pass^k is the mean over the tasks
that have at least k trials; with `short_as_zero` (τ-Rec v1.0's rule, its
`aggregate_pass_k`), the mean over every task, a task with fewer than k trials scoring 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb

import numpy as np


def task_pass_k(c: int, n: int, k: int) -> float:
    if not 0 <= c <= n:
        raise ValueError(f"expected 0 <= c <= n, got c={c}, n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"expected 1 <= k <= n, got k={k}, n={n}")
    return comb(c, k) / comb(n, k)


def task_curve(c: int, n: int) -> np.ndarray:
    """C(c,k)/C(n,k) for k = 1..n at once, as the running product of (c-i)/(n-i):
    O(n), where computing each ratio of binomials is O(n) big-integer work per k. Equal
    to task_pass_k up to float rounding (relative error below 1e-12 for n in the
    thousands)."""
    if not 0 <= c <= n:
        raise ValueError(f"expected 0 <= c <= n, got c={c}, n={n}")
    i = np.arange(n, dtype=float)
    return np.cumprod(np.maximum(c - i, 0.0) / (n - i))


def pass_k(
    counts: Mapping[str, tuple[int, int]], k: int, *, short_as_zero: bool = False
) -> float | None:
    """Mean of C(c,k)/C(n,k) over tasks with n >= k; None when no task has k trials.
    `short_as_zero`: over every task in `counts`, those with n < k (none at all included)
    scoring 0."""
    values = [
        task_pass_k(c, n, k) if n >= k else 0.0
        for c, n in counts.values()
        if n >= k or short_as_zero
    ]
    if not any(n >= k for _, n in counts.values()):
        return None
    return sum(values) / len(values)


def pass_k_curve(counts: Mapping[str, tuple[int, int]]) -> dict[int, float]:
    """pass^k for k = 1 .. the largest trial count."""
    top = max((n for _, n in counts.values()), default=0)
    sums, tasks = np.zeros(top), np.zeros(top)
    for c, n in counts.values():
        sums[:n] += task_curve(c, n)
        tasks[:n] += 1
    return {k: float(sums[k - 1] / tasks[k - 1]) for k in range(1, top + 1) if tasks[k - 1]}


def bootstrap_ci(
    per_task: Sequence[float], *, seed: int = 0, resamples: int = 2000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile CI of the mean, resampling tasks with replacement (seeded)."""
    return bootstrap_cis([per_task], seed=seed, resamples=resamples, level=level)[0]


#: How many resampled values a bootstrap draws at a time (memory: 8 bytes each, twice).
DRAWN_AT_ONCE = 1 << 20


def bootstrap_cis(
    columns: Sequence[Sequence[float]],
    *,
    seed: int = 0,
    resamples: int = 2000,
    level: float = 0.95,
) -> list[tuple[float, float]]:
    """`bootstrap_ci` of each column (all of one length), the columns resampled alike:
    the same draws as `bootstrap_ci` gives each one with this seed, made once, a few
    resamples at a time (DRAWN_AT_ONCE), so memory stays flat and time linear in the
    values. Equal to `bootstrap_ci` column by column, bit for bit."""
    values = [np.asarray(c, dtype=float) for c in columns]
    n = values[0].size if values else 0
    if n == 0:
        return [(float("nan"), float("nan"))] * len(values)
    if n == 1:
        return [(float(v[0]), float(v[0])) for v in values]
    rng = np.random.default_rng(seed)
    means = np.empty((len(values), resamples))
    rows = max(1, DRAWN_AT_ONCE // n)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        idx = rng.integers(0, n, size=(stop - start, n))  # the rows bootstrap_ci draws
        for j, v in enumerate(values):
            means[j, start:stop] = v[idx].mean(axis=1)
    alpha = (1 - level) / 2
    # each column as bootstrap_ci took its quantiles
    bounds = [np.quantile(m, [alpha, 1 - alpha]) for m in means]
    return [(float(lo), float(hi)) for lo, hi in bounds]


def pass_k_with_ci(
    counts: Mapping[str, tuple[int, int]],
    *,
    seed: int = 0,
    resamples: int = 2000,
    short_as_zero: bool = False,
) -> dict[int, tuple[float, tuple[float, float]]]:
    """pass^k for k = 1 .. the largest trial count, each with a 95% percentile bootstrap
    interval (tasks resampled with replacement, seeded). `short_as_zero`: every task
    counts at every k, one with fewer than k trials scoring 0 (τ-Rec's rule), a task with
    none at all (n = 0, a suite's task no log played) included.

    All k are computed together: a (tasks x k) matrix of per-task values, and for each
    set of tasks eligible at some k (those with n >= k), one matrix of bootstrap draw
    counts (resamples x tasks) whose product with it gives every resampled mean. Cost
    grows with tasks x trials, not with trials squared.
    """
    tasks = [(c, n) for c, n in counts.values() if n >= 1 or short_as_zero]
    if not any(n for _, n in tasks):
        return {}
    top = max(n for _, n in tasks)
    values = np.zeros((len(tasks), top))
    for row, (c, n) in enumerate(tasks):
        values[row, :n] = task_curve(c, n)
    # a short task's row is 0 past its trials, so counting it at every k scores it 0
    trials = np.array([top if short_as_zero else n for _, n in tasks])
    out: dict[int, tuple[float, tuple[float, float]]] = {}
    k = 1
    while k <= top:
        eligible = trials >= k
        # the eligible set is the same for every k up to the next smallest trial count
        last = int(trials[eligible].min())
        block = values[eligible, k - 1 : last]  # (tasks, ks)
        means = block.mean(axis=0)
        t = block.shape[0]
        if t == 1:
            bounds = np.stack([block[0], block[0]])
        else:
            bounds = np.quantile(_resampled(block, seed + k, resamples), [0.025, 0.975], axis=0)
        for j in range(block.shape[1]):
            out[k + j] = (float(means[j]), (float(bounds[0, j]), float(bounds[1, j])))
        k = last + 1
    return out


def _resampled(block: np.ndarray, seed: int, resamples: int) -> np.ndarray:
    """Each resample's mean of every column of `block` (tasks x ks): multinomial counts of
    the tasks drawn (resamples x tasks, a few rows at a time: DRAWN_AT_ONCE) times it."""
    t = block.shape[0]
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, block.shape[1]))
    rows = max(1, DRAWN_AT_ONCE // t)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        draws = rng.multinomial(t, np.full(t, 1.0 / t), size=stop - start)
        out[start:stop] = draws @ block / t
    return out


def paired_difference(
    a: Mapping[str, tuple[int, int]],
    b: Mapping[str, tuple[int, int]],
    *,
    seed: int = 0,
    resamples: int = 5000,
) -> tuple[float, tuple[float, float], int]:
    """pass^1(A) - pass^1(B) over the tasks both ran, with a paired bootstrap CI."""
    shared = sorted(set(a) & set(b))
    diffs = [a[t][0] / a[t][1] - b[t][0] / b[t][1] for t in shared if a[t][1] and b[t][1]]
    if not diffs:
        return (float("nan"), (float("nan"), float("nan")), 0)
    return (
        sum(diffs) / len(diffs),
        bootstrap_ci(diffs, seed=seed, resamples=resamples),
        len(diffs),
    )


#: Below this many shared tasks `compare` warns: the bootstrap's CI is too rough to trust.
MIN_SHARED_TASKS = 10


def difference_verdict(lo: float, hi: float) -> str:
    """What a paired difference's 95% CI says. A CI without width (one shared task, or
    every task's difference the same) measures no noise, so it gives no verdict."""
    if not hi > lo:
        return (
            "no verdict: the 95% CI has no width (every shared task differs by the same "
            "amount, so the bootstrap measures no noise; run more tasks or trials)"
        )
    if lo > 0 or hi < 0:
        return "distinguishable from noise (the 95% CI excludes 0)"
    return "NOT distinguishable from noise (the 95% CI includes 0)"
