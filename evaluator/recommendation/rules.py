"""Rules profiles: which rules an episode is judged by, found by name.

- `taurec` (the default): this project's checks (policies/checks.py) on the transcript,
  with its constraint semantics (tasks/recommendation/constraint.py). It closes loopholes τ-Rec leaves
  open; README.md lists every departure with the test that shows it.
- `tau-rec`: τ-Rec v1.0's own evaluator, loopholes included (evaluator/recommendation/taurec_v1_rules.py),
  on the trace τ-Rec would have recorded (evaluator/recommendation/taurec_trace.py).

A profile is a pure function of (task, trajectory, transcript, catalog, title matcher),
and says how pass^k treats a task with fewer than k trials: `taurec` leaves it out of
the mean, `tau-rec` scores it 0 and keeps it in (as τ-Rec's `aggregate_pass_k` does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import Catalog
from taurec.evaluator.defaults import DEFAULT_RULES as DEFAULT_RULES
from taurec.evaluator.recommendation.judgement import ConstraintVerdict, Judgement
from taurec.evaluator.recommendation.taurec_trace import to_trace
from taurec.evaluator.recommendation.taurec_v1_rules import judge_trace
from taurec.policies.checks import CheckContext, check_policies
from taurec.policies.transcript import CommitKind, Transcript
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import Trajectory

Judge = Callable[[RecommendationTask, Trajectory, Transcript, Catalog, TitleMatcher], Judgement]


@dataclass(frozen=True)
class RulesProfile:
    name: str
    summary: str
    judge: Judge
    #: pass^k: a task short of k trials scores 0 and stays in the mean (else: left out)
    short_of_k_scores_zero: bool = False


#: (id(task), item id) -> (task, item, its verdicts, how many hold): every trial of a task
#: that commits the same item is judged alike. The entry keeps the task and item it was
#: made for, so an id reused by another object never matches; emptied when full.
_JUDGED: dict[tuple[int, str], tuple[object, object, tuple[ConstraintVerdict, ...], int]] = {}
_JUDGED_MAX = 1 << 14


def _constraint_verdicts(
    task: RecommendationTask, item: Item
) -> tuple[tuple[ConstraintVerdict, ...], int]:
    """The committed item against each of the task's constraints (the verdicts are
    frozen, so episodes share them)."""
    key = (id(task), item.id)
    hit = _JUDGED.get(key)
    if hit is not None and hit[0] is task and hit[1] is item:
        return hit[2], hit[3]
    verdicts = tuple(
        ConstraintVerdict(i, c.text, c.reveal.value, c.holds(item), getattr(item, c.field))
        for i, c in enumerate(task.constraints)
    )
    held = sum(v.holds for v in verdicts)
    if len(_JUDGED) >= _JUDGED_MAX:
        _JUDGED.clear()
    _JUDGED[key] = (task, item, verdicts, held)
    return verdicts, held


def judge_taurec(
    task: RecommendationTask,
    trajectory: Trajectory,
    transcript: Transcript,
    catalog: Catalog,
    titles: TitleMatcher,
) -> Judgement:
    """This project's rules: the last committed item against every constraint (no item
    passes a task with no valid answer), and the flagged policies' checks."""
    out = transcript.outcome  # once: `recommended_item` and `abstained` each ask for it
    item_id = out.item_id if out is not None and out.kind is CommitKind.ITEM else None
    abstained = out is not None and out.kind is CommitKind.ABSTAIN
    outcome = "item" if item_id else ("abstain" if abstained else "none")
    j = Judgement(outcome=outcome, item_id=item_id)
    if item_id is not None:
        item = catalog.get(item_id)
        assert item is not None  # commits are validated against the catalog
        verdicts, held = _constraint_verdicts(task, item)
        j.constraint_verdicts = list(verdicts)
        j.constraint_partial = held / len(task.constraints)
        strict = held == len(task.constraints) and not task.no_valid_recommendation
        j.constraint_score = 1.0 if strict else 0.0
    elif abstained and task.no_valid_recommendation:
        j.constraint_score = j.constraint_partial = 1.0
    j.policy_results = check_policies(CheckContext(task, transcript, catalog, titles))
    return j


def judge_tau_rec(
    task: RecommendationTask,
    trajectory: Trajectory,
    transcript: Transcript,
    catalog: Catalog,
    titles: TitleMatcher,
) -> Judgement:
    return judge_trace(task, to_trace(trajectory, task, catalog), catalog)


RULES: dict[str, RulesProfile] = {
    p.name: p
    for p in (
        RulesProfile("taurec", "this project's checks (loopholes closed)", judge_taurec),
        RulesProfile(
            "tau-rec",
            "τ-Rec v1.0's own evaluator, loopholes included",
            judge_tau_rec,
            short_of_k_scores_zero=True,
        ),
    )
}
#: What --rules accepts: one profile, or every profile side by side.
BOTH: Final = "both"


def rules_profile(name: str) -> RulesProfile:
    """The profile called `name`; ValueError naming the choices otherwise."""
    profile = RULES.get(name)
    if profile is None:
        raise ValueError(f"unknown rules profile {name!r}; expected one of {', '.join(RULES)}")
    return profile


def rules_names(choice: str) -> list[str]:
    """The profiles a --rules value asks for: one name, or every profile for 'both'."""
    if choice == BOTH:
        return list(RULES)
    return [rules_profile(choice).name]
