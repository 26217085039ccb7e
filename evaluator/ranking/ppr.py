"""The "ppr" kind (AgenticRec's pairwise preference tasks) in the evaluator: per episode,
reward 1 when the first submit_answer call holds the task's letter and 0 otherwise (an
answer other than A/B, or none, included: taurec.tasks.ranking.pair.score_answer); per
agent label, accuracy overall and per direction (MORE, LESS) with bootstrap CIs, the
invalid-answer rate, the share of answers that were "A" (a position bias shows as a
share far from 0.5), and pass^k.
"""

from __future__ import annotations

from statistics import fmean
from typing import TYPE_CHECKING, Any

from taurec.evaluator.aggregate import means_with_ci, pass_k_fields
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.kinds import EVALUATOR_KINDS, EvaluatorKind, KindView, TitleOf
from taurec.evaluator.render import run_rows
from taurec.evaluator.text import plural
from taurec.tasks.ranking.pair import SUBMIT, PairTask, score_answer
from taurec.tasks.trajectory.format import EndReason, Trajectory

if TYPE_CHECKING:
    from taurec.evaluator.resolver import Resolver, SuiteContext

#: per-episode metrics; accuracy_more / accuracy_less are set only for their direction
METRICS = ("accuracy", "accuracy_more", "accuracy_less", "valid", "answered_a")


def pair_answer(trajectory: Trajectory) -> Any:
    """The `answer` argument of the episode's first submit_answer call (None: no call)."""
    for ev in trajectory.events:
        if ev["type"] == "tool_call" and ev["name"] == SUBMIT:
            return (ev.get("arguments") or {}).get("answer")
    return None


def score_pair_episode(task: PairTask, trajectory: Trajectory, path: str = "") -> EpisodeScore:
    """Score one PPR episode. Pure."""
    header = trajectory.header
    end = trajectory.end
    answer = pair_answer(trajectory)
    outcome = score_answer(task, answer)
    metrics = {
        "accuracy": outcome.reward,
        f"accuracy_{task.direction.lower()}": outcome.reward,
        "valid": float(outcome.valid),
        "answered_a": float(outcome.answer == "A"),
    }
    score = EpisodeScore(
        path=path,
        label=header.agent.label,
        task_id=header.task_id,
        trial=header.trial,
        end_reason=end["reason"] if end else "missing",
        outcome="answer" if outcome.valid else "none",
        item_id=None,
        kind="ppr",
        reward=outcome.reward,
        metrics=metrics,
        success=outcome.correct,
        tool_calls=0,
    )
    if outcome.problem and answer is not None:
        score.problems.append(f"{path}: invalid answer: {outcome.problem}")
    if end is not None and end["reason"] == EndReason.INFRA_ERROR:
        score.infra_error = True
        score.problems.append(f"infrastructure error: {end.get('detail') or 'no detail logged'}")
    return score


def _score(
    task: Any, trajectory: Trajectory, ctx: SuiteContext, resolver: Resolver, path: str
) -> EpisodeScore:
    return score_pair_episode(task, trajectory, path)


def aggregate_pairs(label: str, scores: list[EpisodeScore], seed: int = 0) -> dict[str, Any]:
    values = {name: [s.metrics[name] for s in scores if name in s.metrics] for name in METRICS}
    means, cis = means_with_ci(values, seed)
    return {
        **pass_k_fields(label, scores, seed),
        "metrics": means,
        "metrics_ci": cis,
        "metrics_n": {name: len(v) for name, v in values.items()},
        "mean_reward": fmean(s.reward for s in scores) if scores else None,
        "infra_errors": sum(s.infra_error for s in scores),
        "episodes_with_problems": sum(bool(s.problems) for s in scores),
    }


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.4f}"


_ROWS = (
    ("accuracy", "accuracy (= reward)"),
    ("accuracy_more", "accuracy, MORE tasks"),
    ("accuracy_less", "accuracy, LESS tasks"),
    ("answered_a", "share of answers 'A'"),
)


def pair_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [
        *run_rows(group),
        (
            "episodes / tasks",
            f"{group['n_episodes']} / {group['n_tasks']} (up to {plural(group['trials'], 'trial')})",
        ),
    ]
    for name, title in _ROWS:
        lo, hi = group["metrics_ci"][name]
        rows.append((title, f"{_num(group['metrics'][name])}  [{_num(lo)}, {_num(hi)}]"))
    for k, v in group["pass_k"].items():
        lo, hi = group["pass_k_ci"][k]
        rows.append((f"pass^{k}", f"{_num(v)}  [{_num(lo)}, {_num(hi)}]"))
    valid = group["metrics"]["valid"]
    rows += [
        ("invalid answers", _num(None if valid is None else 1.0 - valid)),
        ("infrastructure errors", f"{group['infra_errors']} (counted as failures)"),
    ]
    return rows


def pair_view(task: Any, events: list[dict[str, Any]], title_of: TitleOf) -> dict[str, Any] | None:
    """The two items, the correct letter and the submitted answer; None for another kind."""
    if not isinstance(task, PairTask):
        return None
    answer = next(
        (
            (ev.get("arguments") or {}).get("answer")
            for ev in events
            if ev.get("type") == "tool_call" and ev.get("name") == SUBMIT
        ),
        None,
    )
    return {
        "direction": task.direction,
        "item_a": task.item_a.model_dump(),
        "item_b": task.item_b.model_dump(),
        "positive": task.positive,
        "answer": task.answer,
        "submitted": answer,
    }


EVALUATOR_KINDS.register("ppr")(
    EvaluatorKind(
        score=_score,
        aggregate_group=aggregate_pairs,
        summary_rows=pair_rows,
        view=KindView(
            "ppr", lambda score, task, events, title_of: pair_view(task, events, title_of)
        ),
    )
)
