"""Scoring one episode: constraint verdicts, policy verdicts, reward.

reward = constraint_score × policy_score, both strict (0 or 1); an episode passes iff
reward is 1. The partial constraint score (fraction of constraints the committed item
satisfies) and the policy results are kept for reports. Which rules decide the verdicts
is the rules profile's business (evaluator/recommendation/rules.py); an infrastructure error fails the
episode under every profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median

from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import Catalog
from taurec.evaluator.recommendation.judgement import ConstraintVerdict
from taurec.evaluator.recommendation.rules import DEFAULT_RULES, rules_profile
from taurec.evaluator.recommendation.simulator_audit import SimulatorFault
from taurec.policies.checks import PolicyResult, Verdict
from taurec.policies.transcript import Transcript, build_transcript
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import EndReason, Trajectory


@dataclass
class EpisodeScore:
    path: str
    label: str
    task_id: str
    trial: int
    end_reason: str
    outcome: str  # "item", "abstain" or "none"
    item_id: str | None
    constraint_verdicts: list[ConstraintVerdict] = field(default_factory=list)
    constraint_score: float = 0.0
    constraint_partial: float = 0.0
    policy_results: list[PolicyResult] = field(default_factory=list)
    policy_score: float = 0.0
    reward: float = 0.0
    complexity: str | None = None
    reveal: str | None = None
    no_valid: bool | None = None
    infra_error: bool = False
    replay_mismatches: int = 0  # logged read-only results the catalog does not reproduce
    problems: list[str] = field(default_factory=list)
    turns: int = 0  # agent messages sent to the user
    turns_to_commit: int | None = None
    tool_calls: int = 0
    median_latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    episode_id: str | None = None
    verification: str | None = None  # why the log failed verification (None: it passed)
    unchained: bool = False  # the log carries no hash chain (another harness wrote it)
    log_chain: str | None = None  # the chain hash of the log's last line
    mode: str = "open"  # "sealed": played under a run plan; "open": anyone could start it
    plan_id: str | None = None
    suite_id: str | None = None
    suite_spec: str | None = None
    suite_sha256: str | None = None  # of the suite it was scored against
    sealed_failure: str | None = None  # a planned episode counted as failed: why
    kind: str = "recommendation"  # the task kind (see taurec.evaluator.kinds)
    metrics: dict[str, float] = field(default_factory=dict)  # a kind's per-episode metrics
    success: bool | None = None  # a kind's own pass rule; None: the reward is 1
    rules: str = DEFAULT_RULES  # the rules profile that judged it
    simulator: str | None = None  # the simulated user's kind, from the header
    simulator_faults: list[SimulatorFault] = field(
        default_factory=list
    )  # see recommendation/simulator_audit.py

    @property
    def passed(self) -> bool:
        return self.reward == 1.0 if self.success is None else self.success

    @property
    def report_group(self) -> tuple[str, str, str, str, str]:
        """The report it counts in: one per agent label, run and task kind (a sealed run,
        by its plan, is a group of its own, and so are a label's open-mode logs against
        one suite). `aggregate` groups by it; trials repeat only within one."""
        return (self.label, self.mode, self.plan_id or "", self.suite_id or "", self.kind)


def _efficiency(score: EpisodeScore, trajectory: Trajectory, transcript: Transcript) -> None:
    commit_seq = transcript.outcome.seq if transcript.outcome else None
    turns = transcript.turns
    score.turns = len(turns)
    score.tool_calls = len(transcript.calls)
    if commit_seq is not None:
        score.turns_to_commit = sum(1 for seq in turns if seq < commit_seq)
    score.median_latency_ms = median(transcript.latencies) if transcript.latencies else None
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
        complexity=task.stratum[0].value,
        reveal=task.stratum[1].value,
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
