"""The "recommendation" kind (τ-Rec) in the evaluator: constraints × policies per episode,
pass^k, strata and failure modes per label (evaluator/episode.py, aggregate.py, render.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taurec.evaluator.aggregate import aggregate_group
from taurec.evaluator.episode import EpisodeScore, score_episode
from taurec.evaluator.kinds import EVALUATOR_KINDS, EvaluatorKind
from taurec.evaluator.render import summary_rows
from taurec.tasks.trajectory.format import Trajectory

if TYPE_CHECKING:
    from taurec.evaluator.resolver import Resolver, SuiteContext


def score_recommendation(
    task: Any, trajectory: Trajectory, ctx: SuiteContext, resolver: Resolver, path: str
) -> EpisodeScore:
    score = score_episode(
        task, trajectory, ctx.catalog, ctx.titles, path=path, rules=resolver.rules
    )
    if resolver.replay:
        mismatches = ctx.replayer.mismatches(trajectory, task)
        score.replay_mismatches = len(mismatches)
        score.problems.extend(f"{path}: replay: {m}" for m in mismatches)
    if trajectory.header.catalog_sha256 != ctx.catalog.sha256():
        score.problems.append(
            f"{path}: catalog sha256 differs from the one the episode ran against (drift)"
        )
    return score


EVALUATOR_KINDS.register("recommendation")(
    EvaluatorKind(
        score=score_recommendation,
        aggregate_group=lambda label, scores, seed: aggregate_group(label, scores, seed=seed),
        summary_rows=summary_rows,
    )
)
