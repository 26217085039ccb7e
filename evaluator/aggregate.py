"""Per-agent-label aggregation: the numbers `evaluator score --json` promises.

Infrastructure-error episodes count in n as failures and are reported in
`infra_errors`; they are never dropped.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from statistics import fmean
from typing import Any

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.memory import collector_paused
from taurec.evaluator.passk import bootstrap_cis, pass_k_with_ci
from taurec.tasks.trajectory.format import EndReason

Counts = dict[str, tuple[int, int]]


def task_counts(scores: Iterable[EpisodeScore]) -> Counts:
    """task id -> (passed trials, trials)."""
    acc: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for s in scores:
        acc[s.task_id][0] += int(s.passed)
        acc[s.task_id][1] += 1
    return {t: (c, n) for t, (c, n) in sorted(acc.items())}


def pass_k_fields(label: str, scores: list[EpisodeScore], seed: int) -> dict[str, Any]:
    """What a kind's group report starts with: its label, task and episode counts, and
    pass^k for each k with bootstrap CIs."""
    counts = task_counts(scores)
    curve = pass_k_with_ci(counts, seed=seed)
    return {
        "label": label,
        "n_tasks": len(counts),
        "n_episodes": len(scores),
        "trials": max((n for _, n in counts.values()), default=0),
        "pass_k": {str(k): v for k, (v, _) in curve.items()},
        "pass_k_ci": {str(k): [lo, hi] for k, (_, (lo, hi)) in curve.items()},
        "passed": sum(s.passed for s in scores),
    }


def means_with_ci(
    values: dict[str, list[float]], seed: int
) -> tuple[dict[str, float | None], dict[str, list[float]]]:
    """Each metric's mean (None without values) and its bootstrap CI."""
    means = {name: fmean(v) if v else None for name, v in values.items()}
    by_length: dict[int, list[str]] = defaultdict(list)  # columns of one length share draws
    for name, v in values.items():
        by_length[len(v)].append(name)
    cis: dict[str, list[float]] = {}
    for names in by_length.values():
        found = bootstrap_cis([values[name] for name in names], seed=seed)
        cis |= {name: list(ci) for name, ci in zip(names, found, strict=True)}
    return means, {name: cis[name] for name in values}


def _suite(scores: list[EpisodeScore]) -> dict[str, Any]:
    """The suite a group was scored against (the most common, when logs differ)."""
    found = Counter((s.suite_id, s.suite_spec, s.suite_sha256) for s in scores)
    (sid, spec, sha), _ = found.most_common(1)[0] if found else ((None, None, None), 0)
    return {"id": sid, "spec": spec, "sha256": sha}


def agent_error_fields(scores: list[EpisodeScore]) -> dict[str, Any]:
    """How many episodes ended as agent_error (the agent raised, timed out or returned
    without committing) and, when every episode did, the first one's log (for `evaluator
    explain`, which shows its traceback): such a group measures nothing about the agent's
    choices, so no kind diagnoses a failure mode for it."""
    errored = [s for s in scores if s.end_reason == EndReason.AGENT_ERROR]
    every = bool(errored) and len(errored) == len(scores)
    first = min(errored, key=lambda s: (s.task_id, s.trial, s.path)) if every else None
    return {"agent_errors": len(errored), "agent_error_log": first.path if first else None}


def run_fields(scores: list[EpisodeScore]) -> dict[str, Any]:
    """What every kind's group says about its run: sealed or open, the plan, the suite,
    its agent errors."""
    first = scores[0] if scores else None
    sealed_failed = Counter(s.sealed_failure.split(":")[0] for s in scores if s.sealed_failure)
    return {
        "mode": first.mode if first else "open",
        "plan_id": first.plan_id if first else None,
        "suite": _suite(scores),
        "sealed_failures": dict(sorted(sealed_failed.items())),
        "unchained_logs": sum(s.unchained for s in scores),
        **agent_error_fields(scores),
    }


def aggregate(scores: Iterable[EpisodeScore], *, seed: int = 0) -> list[dict[str, Any]]:
    """One report per agent label, run and task kind: a sealed run (its plan) is a group
    of its own, and so are a label's open-mode logs against one suite. Each group is made
    by its kind's aggregate (see kinds.py) and tagged with the kind and the run. Sorted
    by label."""
    from taurec.evaluator.kinds import EVALUATOR_KINDS
    from taurec.evaluator.model_usage import usage_fields
    from taurec.evaluator.recommendation.dialogue import dialogue_fields

    with collector_paused():
        groups: dict[tuple[str, str, str, str, str], list[EpisodeScore]] = defaultdict(list)
        for s in scores:
            groups[s.report_group].append(s)
        out = []
        for key in sorted(groups):
            members = groups[key]
            group = EVALUATOR_KINDS.get(key[4]).aggregate_group(key[0], members, seed)
            out.append(
                {
                    "kind": key[4],
                    **run_fields(members),
                    **group,
                    **dialogue_fields(members),
                    **usage_fields(members),
                }
            )
        for kind in sorted({g["kind"] for g in out}):
            compare = EVALUATOR_KINDS.get(kind).compare
            if compare is not None:
                compare([g for g in out if g["kind"] == kind], seed)
        return out
