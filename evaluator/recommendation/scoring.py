"""The "recommendation" kind (τ-Rec) in the evaluator: constraints × policies per episode,
pass^k, strata and failure modes per label (aggregate.py, render.py).

reward = constraint_score × policy_score, both strict (0 or 1); an episode passes iff
reward is 1. The partial constraint score (fraction of constraints the committed item
satisfies) and the policy results are kept for reports. Which rules decide the verdicts
is the rules profile's business (rules.py); an infrastructure error fails the episode
under every profile.
"""

from __future__ import annotations

from statistics import median
from typing import TYPE_CHECKING, Any

from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import Catalog
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.kinds import EVALUATOR_KINDS, EvaluatorKind
from taurec.evaluator.recommendation.aggregate import aggregate_group, summary_rows
from taurec.evaluator.recommendation.rules import DEFAULT_RULES, rules_profile
from taurec.policies.checks import Verdict
from taurec.policies.transcript import Transcript, build_transcript
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import EndReason, Trajectory

if TYPE_CHECKING:
    from taurec.evaluator.resolver import Resolver, SuiteContext


def _efficiency(score: EpisodeScore, trajectory: Trajectory, transcript: Transcript) -> None:
    outcome = transcript.outcome
    turns = transcript.turns
    score.turns = len(turns)
    score.tool_calls = len(transcript.calls)
    if outcome is not None:
        commit_seq = outcome.seq
        score.turns_to_commit = sum(1 for seq in turns if seq < commit_seq)
    latencies = transcript.latencies
    score.median_latency_ms = median(latencies) if latencies else None
    end = trajectory.end
    usage = end.get("usage") if end is not None else None
    if usage:
        score.prompt_tokens = usage.get("prompt_tokens")
        score.completion_tokens = usage.get("completion_tokens")
        score.cost_usd = usage.get("cost_usd")


def score_episode(
    task: RecommendationTask,
    trajectory: Trajectory,
    catalog: Catalog,
    titles: TitleMatcher,
    *,
    path: str = "",
    rules: str = DEFAULT_RULES,
) -> EpisodeScore:
    """Score a complete, parsed episode under the rules profile `rules`. Pure: no I/O,
    no randomness."""
    header = trajectory.header
    transcript = build_transcript(trajectory, catalog)
    end = trajectory.end
    judged = rules_profile(rules).judge(task, trajectory, transcript, catalog, titles)
    item_id = transcript.recommended_item
    stratum = task.stratum
    score = EpisodeScore(
        path=path,
        label=header.agent.label,
        task_id=header.task_id,
        trial=header.trial,
        end_reason=end["reason"] if end else "missing",
        outcome=judged.outcome,
        item_id=judged.item_id,
        constraint_verdicts=judged.constraint_verdicts,
        constraint_score=judged.constraint_score,
        constraint_partial=judged.constraint_partial,
        policy_results=judged.policy_results,
        rules=rules,
        complexity=stratum[0]._value_,  # `.value`, without the enum property's cost
        reveal=stratum[1]._value_,
        no_valid=task.no_valid_recommendation,
    )
    if end is not None and end["reason"] == EndReason.INFRA_ERROR:
        score.infra_error = True
        score.problems.append(f"infrastructure error: {end.get('detail') or 'no detail logged'}")
    if end is not None and end["reason"] == EndReason.RECOMMENDED and end.get("item_id") != item_id:
        score.problems.append(
            f"end record names {end.get('item_id')!r} but the recommend calls committed {item_id!r}"
        )

    failed = any(r.verdict is Verdict.FAIL for r in score.policy_results)
    score.policy_score = 0.0 if failed else 1.0
    score.reward = 0.0 if score.infra_error else score.constraint_score * score.policy_score
    _efficiency(score, trajectory, transcript)
    return score


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
        score.replay = "replayed"
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
        signed_skips_replay=True,
    )
)
