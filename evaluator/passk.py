"""pass^k and its bootstrap confidence intervals.

pass^k for one task with n trials of which c passed is C(c,k)/C(n,k): the chance that k
trials drawn without replacement all pass. A suite's pass^k is the mean over the tasks
that have at least k trials.
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


def pass_k(counts: Mapping[str, tuple[int, int]], k: int) -> float | None:
    """Mean of C(c,k)/C(n,k) over tasks with n >= k; None when no task has k trials."""
    values = [task_pass_k(c, n, k) for c, n in counts.values() if n >= k]
    return sum(values) / len(values) if values else None


def pass_k_curve(counts: Mapping[str, tuple[int, int]]) -> dict[int, float]:
    """pass^k for k = 1 .. the largest trial count."""
    top = max((n for _, n in counts.values()), default=0)
    out: dict[int, float] = {}
    for k in range(1, top + 1):
        value = pass_k(counts, k)
        if value is not None:
            out[k] = value
    return out


def bootstrap_ci(
    per_task: Sequence[float], *, seed: int = 0, resamples: int = 2000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile CI of the mean, resampling tasks with replacement (seeded)."""
    values = np.asarray(per_task, dtype=float)
    if values.size == 0:
        return (float("nan"), float("nan"))
    if values.size == 1:
        return (float(values[0]), float(values[0]))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, values.size, size=(resamples, values.size))
    means = values[idx].mean(axis=1)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return (float(lo), float(hi))


def pass_k_with_ci(
    counts: Mapping[str, tuple[int, int]], *, seed: int = 0, resamples: int = 2000
) -> dict[int, tuple[float, tuple[float, float]]]:
    out: dict[int, tuple[float, tuple[float, float]]] = {}
    top = max((n for _, n in counts.values()), default=0)
    for k in range(1, top + 1):
        per_task = [task_pass_k(c, n, k) for c, n in counts.values() if n >= k]
        if per_task:
            ci = bootstrap_ci(per_task, seed=seed + k, resamples=resamples)
            out[k] = (sum(per_task) / len(per_task), ci)
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
