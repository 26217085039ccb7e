"""One flat row per scored episode: what `evaluator episodes`, the viewer and the report
list. A row holds plain JSON values only (strings, numbers, booleans, lists of strings,
a dict of metric floats), so it prints as JSON or CSV as it is.
"""

from __future__ import annotations

import math
from typing import Any

from taurec.evaluator.episode import EpisodeScore
from taurec.policies.checks import Verdict
from taurec.tasks.trajectory.format import EndReason

#: The columns of a row, in order (`metrics` is a dict, flattened by the CSV writer).
COLUMNS = (
    "label",
    "run",
    "mode",
    "kind",
    "task",
    "trial",
    "stratum",
    "passed",
    "graded",
    "result",
    "reward",
    "end_reason",
    "end_detail",
    "error",
    "outcome",
    "item_id",
    "failed_constraints",
    "failed_policies",
    "metrics",
    "failure",
    "simulator",
    "simulator_faults",
    "simulator_fault_kinds",
    "infra_error",
    "problems",
    "turns",
    "tool_calls",
    "duration_s",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "path",
    "episode_id",
)


def _finite(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) or math.isinf(value) else value


def stratum(score: EpisodeScore) -> str | None:
    """`complexity/reveal` for tasks on the strata grid, else None."""
    if score.complexity is None and score.reveal is None:
        return None
    return f"{score.complexity or '?'}/{score.reveal or '?'}"


def _ranking_failure(score: EpisodeScore) -> str:
    if score.metrics.get("valid") == 0.0:
        return "invalid ranking"
    if score.reward < 0:  # the list-wise reward of a valid list without the positive
        return "the positive is not in the submitted list"
    return "the positive is ranked below the passing rank"


def _stream_failure(score: EpisodeScore) -> str:
    regrets = [v for k, v in score.metrics.items() if k.startswith("regret@")]
    missed = sum(1 for v in regrets if v > 0)
    return f"regret in {missed} of {len(regrets)} episodes" if regrets else "stream not scored"


#: Kind -> a one-line reason a failed episode of that kind failed, where its verdicts
#: lists (constraints, policies) say nothing.
FAILURES = {"ranking": _ranking_failure, "stream": _stream_failure}


#: What the `result` column says of an episode.
PASS, FAIL, UNGRADED = "pass", "fail", "ungraded"


def result(score: EpisodeScore) -> str:
    """`pass` or `fail` for a kind that grades its episodes; for one that reads them as a
    curve (streams), `ungraded`, or `fail` when the episode ended in an error or was not
    scored. The viewer, the report and `evaluator episodes` all read this."""
    if score.graded:
        return PASS if score.passed else FAIL
    broken = score.infra_error or score.end_reason == EndReason.AGENT_ERROR
    return FAIL if broken or score.sealed_failure or not score.metrics else UNGRADED


def _agent_error(score: EpisodeScore) -> str | None:
    """An agent error's one line: its traceback's last line, else the end's detail."""
    if score.end_reason != EndReason.AGENT_ERROR:
        return None
    said = score.error or score.end_detail
    return f"agent error: {said}" if said else "agent error"


def failure_summary(score: EpisodeScore) -> str | None:
    """One line on why a failed episode failed, beyond its failed constraints and
    policies (which have columns of their own); None when those say it all."""
    if score.sealed_failure:
        return score.sealed_failure
    if score.infra_error:
        if score.problems:
            return score.problems[0]
        detail = score.end_detail
        return f"infrastructure error: {detail}" if detail else "infrastructure error"
    crashed = _agent_error(score)
    if crashed is not None:
        return crashed
    summary = FAILURES.get(score.kind)
    if summary is not None:
        return summary(score)
    if score.outcome == "abstain":
        return "abstained"
    if score.outcome == "item" and score.no_valid:
        return "recommended a title though none fits: it should have abstained"
    if score.outcome == "none":
        return "no recommendation"
    return None


def episode_row(score: EpisodeScore) -> dict[str, Any]:
    """The row of one episode (see COLUMNS)."""
    faults = list(getattr(score, "simulator_faults", None) or [])
    return {
        "label": score.label,
        "run": score.plan_id,
        "mode": score.mode,
        "kind": score.kind,
        "task": score.task_id,
        "trial": score.trial,
        "stratum": stratum(score),
        "passed": score.passed,
        "graded": score.graded,
        "result": result(score),
        "reward": _finite(score.reward),
        "end_reason": score.end_reason,
        "end_detail": score.end_detail,
        "error": score.error,
        "outcome": score.outcome,
        "item_id": score.item_id,
        "failed_constraints": [v.text for v in score.constraint_verdicts if not v.holds],
        "failed_policies": [
            r.policy.value for r in score.policy_results if r.verdict is Verdict.FAIL
        ],
        "metrics": {k: _finite(v) for k, v in score.metrics.items()},
        "failure": None if result(score) != FAIL else failure_summary(score),
        "simulator": getattr(score, "simulator", None),
        "simulator_faults": len(faults),
        "simulator_fault_kinds": sorted({str(getattr(f, "kind", f)) for f in faults}),
        "infra_error": score.infra_error,
        "problems": list(score.problems),
        "turns": score.turns,
        "tool_calls": score.tool_calls,
        "duration_s": _finite(score.duration_s),
        "prompt_tokens": score.prompt_tokens,
        "completion_tokens": score.completion_tokens,
        "cost_usd": score.cost_usd,
        "path": score.path,
        "episode_id": score.episode_id,
    }


def episode_rows(scores: list[EpisodeScore]) -> list[dict[str, Any]]:
    """One row per episode, in the order given."""
    return [episode_row(s) for s in scores]
