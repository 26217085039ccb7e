"""What a rules profile decides about one episode: constraint and policy verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field

from taurec.policies.checks import PolicyResult


@dataclass(frozen=True)
class ConstraintVerdict:
    """One constraint on the committed item. Plain values, so scores travel cheaply
    between worker processes."""

    index: int  # position in task.constraints
    text: str  # e.g. "runtime <= 100"
    reveal: str
    holds: bool
    actual: object  # the committed item's value of the field


@dataclass
class Judgement:
    outcome: str  # "item", "abstain" or "none"
    item_id: str | None  # the catalog item judged against the constraints
    constraint_verdicts: list[ConstraintVerdict] = field(default_factory=list)
    constraint_score: float = 0.0
    constraint_partial: float = 0.0
    policy_results: list[PolicyResult] = field(default_factory=list)
