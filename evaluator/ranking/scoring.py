"""The "ranking" kind (AgenticRec) in the evaluator: Hit@1/5/10, NDCG@5/10 and the
list-wise reward per episode (taurec.tasks.ranking.metrics), their means with bootstrap
CIs per agent label, and pass^k where a trial passes when the positive is in the task's
top `pass_k`.

The answer is the `ranking` argument of the episode's submit_ranking call; the tool
count is every call to one of the seven tools (taurec.tasks.ranking.rules: the same count
the server and the Python environment keep), so a call past the budget makes the answer
invalid however the episode ended. Replies a harness rejected before the answer (its
`rejected_replies`) are reported as `answer_retries`.
"""

from __future__ import annotations

from statistics import fmean
from typing import TYPE_CHECKING, Any

import numpy as np

from taurec.evaluator.aggregate import means_with_ci, pass_k_fields
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.kinds import EVALUATOR_KINDS, EvaluatorKind, KindView, TitleOf
from taurec.evaluator.render import run_rows
from taurec.evaluator.text import plural
from taurec.tasks.ranking.metrics import score_ranking
from taurec.tasks.ranking.rules import REJECTED, SUBMIT, is_tool_call
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.trajectory.format import EndReason, Trajectory

if TYPE_CHECKING:
    from taurec.evaluator.resolver import Resolver, SuiteContext

METRICS = ("hit@1", "hit@5", "ndcg@5", "hit@10", "ndcg@10")


def ranking_answer(trajectory: Trajectory) -> tuple[list[str] | None, int]:
    """(the submitted ranking or None, the number of tool calls)."""
    ranking: list[str] | None = None
    calls = 0
    for ev in trajectory.events:
        if ev["type"] != "tool_call":
            continue
        if ev["name"] == SUBMIT and ranking is None:
            value = ev.get("arguments", {}).get("ranking")
            ranking = [str(x) for x in value] if isinstance(value, list) else []
        elif is_tool_call(ev["name"], ev.get("arguments") or {}):
            calls += 1
    return ranking, calls


def answered_calls(trajectory: Trajectory) -> int:
    """Tool calls the tool answered without an error (what the +0.1 bonus needs)."""
    counted = {
        ev["call_id"]
        for ev in trajectory.events
        if ev["type"] == "tool_call" and is_tool_call(ev["name"], ev.get("arguments") or {})
    }
    return sum(
        1
        for ev in trajectory.events
        if ev["type"] == "tool_result" and ev.get("call_id") in counted and not ev.get("is_error")
    )


def answer_retries(trajectory: Trajectory) -> int:
    """How many replies the harness rejected before the answer (0 without a submission)."""
    for ev in trajectory.events:
        if ev["type"] == "tool_call" and ev["name"] == SUBMIT:
            rejected = ev.get("arguments", {}).get(REJECTED)
            return len(rejected) if isinstance(rejected, list) else 0
    return 0


def score_ranking_episode(
    task: RankingTask, trajectory: Trajectory, path: str = ""
) -> EpisodeScore:
    """Score one ranking episode. Pure."""
    header = trajectory.header
    end = trajectory.end
    ranking, calls = ranking_answer(trajectory)
    outcome = score_ranking(task, ranking, calls, answered_calls(trajectory))
    score = EpisodeScore(
        path=path,
        label=header.agent.label,
        task_id=header.task_id,
        trial=header.trial,
        end_reason=end["reason"] if end else "missing",
        outcome="ranking" if ranking is not None else "none",
        item_id=ranking[0] if ranking else None,
        kind="ranking",
        reward=outcome.reward,
        metrics={
            **outcome.metrics(),
            "reward": outcome.reward,
            "valid": float(outcome.valid),
            "answer_retries": float(answer_retries(trajectory)),
        },
        success=outcome.rank is not None and outcome.rank <= task.pass_k,
        tool_calls=calls,
    )
    if outcome.problem:
        score.problems.append(f"{path}: invalid answer: {outcome.problem}")
    if end is not None and end["reason"] == EndReason.INFRA_ERROR:
        score.infra_error = True
        score.problems.append(f"infrastructure error: {end.get('detail') or 'no detail logged'}")
    latencies = [
        e["latency_ms"]
        for e in trajectory.events
        if e.get("latency_ms") is not None and e["type"] != "model_call"  # steps only
    ]
    score.median_latency_ms = float(np.median(latencies)) if latencies else None
    return score


def _score(
    task: Any, trajectory: Trajectory, ctx: SuiteContext, resolver: Resolver, path: str
) -> EpisodeScore:
    score = score_ranking_episode(task, trajectory, path)
    if trajectory.header.catalog_sha256 != ctx.catalog.sha256():
        score.problems.append(
            f"{path}: catalog sha256 differs from the one the episode ran against (drift)"
        )
    return score


def aggregate_ranking(label: str, scores: list[EpisodeScore], seed: int = 0) -> dict[str, Any]:
    values = {
        name: [s.metrics.get(name, -1.0 if name == "reward" else 0.0) for s in scores]
        for name in (*METRICS, "reward", "valid")
    }
    means, cis = means_with_ci(values, seed)
    rewards = [s.reward for s in scores]
    return {
        **pass_k_fields(label, scores, seed),
        "metrics": means,
        "metrics_ci": cis,
        "invalid_rate": fmean(1.0 - s.metrics.get("valid", 0.0) for s in scores)
        if scores
        else None,
        "mean_reward": fmean(rewards) if rewards else None,
        "mean_tool_calls": fmean(s.tool_calls for s in scores) if scores else None,
        "mean_answer_retries": fmean(s.metrics.get("answer_retries", 0.0) for s in scores)
        if scores
        else None,
        "infra_errors": sum(s.infra_error for s in scores),
        "episodes_with_problems": sum(bool(s.problems) for s in scores),
    }


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.4f}"


def ranking_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [
        *run_rows(group),
        (
            "episodes / tasks",
            f"{group['n_episodes']} / {group['n_tasks']} (up to {plural(group['trials'], 'trial')})",
        ),
    ]
    for name in (*METRICS, "reward"):
        lo, hi = group["metrics_ci"][name]
        rows.append((name, f"{_num(group['metrics'][name])}  [{_num(lo)}, {_num(hi)}]"))
    for k, v in group["pass_k"].items():
        lo, hi = group["pass_k_ci"][k]
        rows.append((f"pass^{k} (positive in top-K)", f"{_num(v)}  [{_num(lo)}, {_num(hi)}]"))
    rows += [
        ("invalid answers", _num(group["invalid_rate"])),
        ("tool calls (mean)", _num(group["mean_tool_calls"])),
        ("answer retries (mean)", _num(group.get("mean_answer_retries"))),
        ("infrastructure errors", f"{group['infra_errors']} (counted as failures)"),
    ]
    return rows


def ranking_view(
    task: Any, events: list[dict[str, Any]], title_of: TitleOf
) -> dict[str, Any] | None:
    """The submitted ranking with the positive marked, or None for another kind."""
    if task is None or getattr(task, "kind", None) != "ranking":
        return None
    submitted = next(
        (ev for ev in events if ev.get("type") == "tool_call" and ev.get("name") == SUBMIT), None
    )
    ranking = (submitted or {}).get("arguments", {}).get("ranking")
    ranking = [str(x) for x in ranking] if isinstance(ranking, list) else []
    return {
        "seq": submitted["seq"] if submitted else None,
        "positive": task.positive,
        "positive_title": title_of(task.positive),
        "rank": ranking.index(task.positive) + 1 if task.positive in ranking else None,
        "pass_k": task.pass_k,
        "items": [
            {"rank": n, "id": i, "title": title_of(i), "positive": i == task.positive}
            for n, i in enumerate(ranking, start=1)
        ],
    }


EVALUATOR_KINDS.register("ranking")(
    EvaluatorKind(
        score=_score,
        aggregate_group=aggregate_ranking,
        summary_rows=ranking_rows,
        view=KindView(
            "ranking", lambda score, task, events, title_of: ranking_view(task, events, title_of)
        ),
    )
)
