"""One agent label's recommendation episodes (τ-Rec): pass^k with intervals, constraint
and policy scores, violation rates per policy, the strata, the failure mode and
efficiency, and the rows of its terminal table.

Infrastructure-error episodes count in n as failures and are reported in
`infra_errors`; they are never dropped.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from statistics import fmean, median
from typing import Any

from taurec.evaluator.aggregate import run_fields, task_counts
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.passk import pass_k, pass_k_with_ci
from taurec.evaluator.recommendation.rules import DEFAULT_RULES, rules_profile
from taurec.evaluator.render import run_rows
from taurec.evaluator.text import percent as _pct
from taurec.evaluator.text import plural
from taurec.policies.checks import Verdict
from taurec.tasks.recommendation.task import Complexity, PolicyName, RevealDifficulty
from taurec.tasks.trajectory.format import EndReason


def _num(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def failure_mode(scores: list[EpisodeScore]) -> dict[str, Any]:
    """τ-Rec's failure modes: does a label fail by abstaining or by committing wrong items?

    false abstention: abstained (or committed nothing) on a task that has answers;
    wrong commit: committed an item that breaks a constraint, or any item on a task with
    no valid answer. "abstainer" when false abstentions outnumber wrong commits 2:1,
    "wrong-committer" for the reverse, "balanced" otherwise, "none" with neither.
    "agent-error" when every episode that was not an infrastructure error ended in an
    agent error: the agent never chose, so there is no mode to diagnose.
    `agent_error_rate`: the false abstentions that ended in an agent error (it crashed
    rather than chose not to commit), as a share of all episodes, so a plot can tell them
    apart from abstentions.
    """
    solvable = [s for s in scores if not s.infra_error and s.no_valid is False]
    false_abstain = sum(1 for s in solvable if s.outcome != "item")
    crashed = sum(
        1 for s in solvable if s.outcome != "item" and s.end_reason == EndReason.AGENT_ERROR
    )
    wrong = sum(
        1
        for s in scores
        if not s.infra_error and s.outcome == "item" and (s.no_valid or s.constraint_score < 1.0)
    )
    played = [s for s in scores if not s.infra_error]
    if played and all(s.end_reason == EndReason.AGENT_ERROR for s in played):
        mode = "agent-error"
    elif false_abstain == wrong == 0:
        mode = "none"
    elif false_abstain >= 2 * wrong:
        mode = "abstainer"
    elif wrong >= 2 * false_abstain:
        mode = "wrong-committer"
    else:
        mode = "balanced"
    n = max(len(scores), 1)
    return {
        "mode": mode,
        "false_abstention_rate": false_abstain / n,
        "wrong_commit_rate": wrong / n,
        "agent_error_rate": crashed / n,
    }


def _efficiency(scores: list[EpisodeScore]) -> dict[str, Any]:
    ok = [s for s in scores if not s.infra_error]
    to_commit = [s.turns_to_commit for s in ok if s.turns_to_commit is not None]
    latencies = [s.median_latency_ms for s in ok if s.median_latency_ms is not None]
    tokens_p = [s.prompt_tokens for s in ok if s.prompt_tokens is not None]
    tokens_c = [s.completion_tokens for s in ok if s.completion_tokens is not None]
    costs = [s.cost_usd for s in ok if s.cost_usd is not None]
    return {
        "mean_turns_to_recommendation": fmean(to_commit) if to_commit else None,
        "mean_turns": fmean(s.turns for s in ok) if ok else None,
        "median_tool_calls": median(s.tool_calls for s in ok) if ok else None,
        "median_step_latency_ms": median(latencies) if latencies else None,
        "prompt_tokens": sum(tokens_p) if tokens_p else None,
        "completion_tokens": sum(tokens_c) if tokens_c else None,
        "cost_usd": sum(costs) if costs else None,
    }


#: Strata in their defined order (easiest first), not alphabetically; others after these.
STRATUM_ORDER: dict[str, tuple[str, ...]] = {
    "complexity": tuple(Complexity),
    "reveal": tuple(RevealDifficulty),
}


def _by_stratum(scores: list[EpisodeScore], attr: str) -> dict[str, float]:
    groups: dict[str, list[EpisodeScore]] = defaultdict(list)
    for s in scores:
        groups[getattr(s, attr) or "unknown"].append(s)
    order = STRATUM_ORDER.get(attr, ())
    out = {}
    for key in sorted(groups, key=lambda k: (order.index(k) if k in order else len(order), k)):
        value = pass_k(task_counts(groups[key]), 1)
        if value is not None:
            out[key] = value
    return out


#: What `pass_k_rule` says, by whether short tasks score 0.
PASS_K_RULES = {
    False: "mean over the tasks with at least k trials (a task short of k is left out)",
    True: "mean over every task; a task short of k trials scores 0 (τ-Rec's rule)",
}


def aggregate_group(label: str, scores: list[EpisodeScore], *, seed: int = 0) -> dict[str, Any]:
    counts = task_counts(scores)
    rules = scores[0].rules if scores else DEFAULT_RULES
    zero = rules_profile(rules).short_of_k_scores_zero
    unplayed = _unplayed(scores, counts)
    if zero:  # τ-Rec's rule: a task of the suite that no log played counts, and scores 0
        counts = {**counts, **dict.fromkeys(unplayed, (0, 0))}
    curve = pass_k_with_ci(counts, seed=seed, short_as_zero=zero)
    trial_counts = Counter(n for _, n in counts.values())
    top = max(trial_counts, default=0)
    short = {str(k): sorted(t for t, (_, n) in counts.items() if n < k) for k in range(2, top + 1)}
    policy_fail: Counter[PolicyName] = Counter()
    policy_flagged: Counter[PolicyName] = Counter()
    for s in scores:
        for r in s.policy_results:
            policy_flagged[r.policy] += 1
            if r.verdict is Verdict.FAIL:
                policy_fail[r.policy] += 1
    n = len(scores)
    return {
        "label": label,
        **run_fields(scores),
        "n_tasks": len(counts),
        "n_episodes": n,
        "trials": top,
        "trials_per_task": {str(k): v for k, v in sorted(trial_counts.items())},
        "pass_k": {str(k): v for k, (v, _) in curve.items()},
        "pass_k_ci": {str(k): [lo, hi] for k, (_, (lo, hi)) in curve.items()},
        "pass_k_rule": PASS_K_RULES[zero],
        "tasks_short_of_k": {k: v for k, v in short.items() if v},
        "tasks_without_logs": unplayed,
        "passed": sum(s.passed for s in scores),
        "constraint_score": fmean(s.constraint_score for s in scores) if n else None,
        "constraint_partial": fmean(s.constraint_partial for s in scores) if n else None,
        "policy_score": fmean(s.policy_score for s in scores if not s.infra_error)
        if any(not s.infra_error for s in scores)
        else None,
        "policy_violation_rate": {
            p.value: policy_fail[p] / policy_flagged[p] for p in PolicyName if policy_flagged[p]
        },
        "no_rec_rate": sum(s.outcome != "item" for s in scores) / n if n else None,
        "abstain_rate": sum(s.outcome == "abstain" for s in scores) / n if n else None,
        "infra_errors": sum(s.infra_error for s in scores),
        "episodes_with_problems": sum(bool(s.problems) for s in scores),
        "replay_mismatch_episodes": sum(s.replay_mismatches > 0 for s in scores),
        "by_complexity": _by_stratum(scores, "complexity"),
        "by_reveal": _by_stratum(scores, "reveal"),
        "failure_mode": failure_mode(scores),
        "efficiency": _efficiency(scores),
    }


def _unplayed(scores: list[EpisodeScore], counts: dict[str, tuple[int, int]]) -> list[str]:
    """Open mode: the tasks of the group's suite no log played (see EpisodeScore.suite_tasks)."""
    suite = next((s.suite_tasks for s in scores if s.suite_tasks), None)
    return [t for t in suite or () if t not in counts]


def summary_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = [
        *run_rows(group),
        (
            "episodes / tasks",
            f"{group['n_episodes']} / {group['n_tasks']} (up to {plural(group['trials'], 'trial')})",
        ),
    ]
    for k, v in group["pass_k"].items():
        lo, hi = group["pass_k_ci"][k]
        rows.append((f"pass^{k}", f"{_pct(v)}  [{_pct(lo)}, {_pct(hi)}]"))
    rows += [
        (
            "constraint score (strict / partial)",
            f"{_pct(group['constraint_score'])} / {_pct(group['constraint_partial'])}",
        ),
        ("policy score", _pct(group["policy_score"])),
        ("no-recommendation rate", _pct(group["no_rec_rate"])),
        ("infrastructure errors", f"{group['infra_errors']} (counted as failures)"),
    ]
    for reason, n in group.get("sealed_failures", {}).items():
        rows.append((f"planned, failed: {reason}", str(n)))
    if group.get("unchained_logs"):
        rows.append(("unchained logs (edits undetectable)", str(group["unchained_logs"])))
    for name, rate in group["policy_violation_rate"].items():
        rows.append((f"violations: {name}", _pct(rate)))
    for name, v in group["by_complexity"].items():
        rows.append((f"pass^1 {name}", _pct(v)))
    for name, v in group["by_reveal"].items():
        rows.append((f"pass^1 reveal={name}", _pct(v)))
    fm = group["failure_mode"]
    rows.append(
        (
            "failure mode",
            "none diagnosed: the agent errored in every episode"
            if fm["mode"] == "agent-error"
            else f"{fm['mode']} (false abstentions {_pct(fm['false_abstention_rate'])}, "
            f"wrong commits {_pct(fm['wrong_commit_rate'])})",
        )
    )
    eff = group["efficiency"]
    rows += [
        ("turns to recommendation (mean)", _num(eff["mean_turns_to_recommendation"])),
        ("tool calls (median)", _num(eff["median_tool_calls"])),
        ("step latency ms (median)", _num(eff["median_step_latency_ms"], 2)),
    ]
    if group["tasks_short_of_k"]:
        short = ", ".join(
            f"k={k}: {plural(len(v), 'task')}" for k, v in group["tasks_short_of_k"].items()
        )
        rule = group.get("pass_k_rule", PASS_K_RULES[False])
        counted = "scored 0 in pass^k" if rule == PASS_K_RULES[True] else "left out of pass^k"
        rows.append((f"tasks with fewer trials than k ({counted})", short))
    unplayed = group.get("tasks_without_logs") or []
    if unplayed:
        rule = group.get("pass_k_rule", PASS_K_RULES[False])
        counted = "scored 0 in pass^k" if rule == PASS_K_RULES[True] else "left out of pass^k"
        rows.append((f"tasks of the suite with no log ({counted})", plural(len(unplayed), "task")))
    return rows
