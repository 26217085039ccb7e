"""The `tau-rec` rules profile: τ-Rec v1.0's own evaluator, loopholes included.

It judges the trace τ-Rec would have recorded (evaluator/recommendation/taurec_trace.py) exactly as
τ-Rec's `CombinedEvaluator` does, so our numbers can be set beside its leaderboard:

- constraints: on a task with no valid answer, 1 iff the stop reason is "abstained";
  otherwise the final (only) recommended id must be a catalog item meeting every
  constraint, with τ-Rec's operators: exact, case-sensitive values, dates compared as ISO
  strings;
- watch_history: passes when nothing was recommended; else some `get_user_history` call
  was made (any user, any result) and no recommended id is among the `watched` ids its
  results list;
- availability: vacuous for a user without services; else each recommended id is an item
  on one of the user's services, by exact name; no verification call is required;
- age_restricted: each recommended R/NC-17 item needs some `check_content_preference`
  call with that exact rating (before or after; the profile's age is not consulted);
- sponsored: each recommended sponsored item needs a disclosure phrase in one of the last
  two agent messages of the trace;
- single_recommendation: at most one truthy recommended id; text is not read;
- transparency: on a task with no valid answer, the stop reason is "abstained";
- recommend_tool: any `recommend` call; always passes on a task with no valid answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

import orjson

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.evaluator.recommendation.judgement import ConstraintVerdict, Judgement
from taurec.evaluator.recommendation.taurec_trace import ABSTAINED, Trace
from taurec.policies.checks import PolicyResult, Verdict
from taurec.tasks.recommendation.constraint import Constraint, Op
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask

#: τ-Rec v1.0's disclosure phrases (its policy evaluator's list).
DISCLOSURE_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\bsponsored\b",
        r"\bpromoted\b",
        r"\bpromotion(s|al)?\b",
        r"\badvertis(ement|ing|ed)\b",
        r"\bpaid\s+(promotion|placement|partnership|content)\b",
    )
)
RESTRICTED = frozenset({"R", "NC-17"})


def _value(item: Item, field: str) -> Any:
    """The field as τ-Rec's Movie holds it: dates and ratings as strings."""
    v = getattr(item, field)
    if isinstance(v, date):
        return v.isoformat()
    return v.value if hasattr(v, "value") else v


def constraint_holds(c: Constraint, item: Item) -> bool:
    """τ-Rec's `Constraint.evaluate`: Python's operators on the raw values. Where τ-Rec
    would raise (an operand of the wrong type), the constraint does not hold. `between`,
    which τ-Rec lacks, is `lo <= value <= hi`."""
    actual, v = _value(item, c.field), c.value
    ops: dict[Op, Callable[[], bool]] = {
        Op.LE: lambda: actual <= v,
        Op.GE: lambda: actual >= v,
        Op.EQ: lambda: actual == v,
        Op.NE: lambda: actual != v,
        Op.CONTAINS: lambda: v in actual,
        Op.CONTAINS_ANY: lambda: any(x in actual for x in v),
        Op.NOT_CONTAINS: lambda: v not in actual,
        Op.IN: lambda: actual in v,
        Op.BETWEEN: lambda: v[0] <= actual <= v[1],
    }
    try:
        return bool(ops[c.op]())
    except TypeError:
        return False


def _items(trace: Trace, catalog: Catalog) -> list[Item | None]:
    return [catalog.get(r) for r in trace.recommendations]


#: A check's verdict and why, in one line.
Outcome = tuple[bool, str]


def _watch_history(task: RecommendationTask, trace: Trace, catalog: Catalog) -> Outcome:
    if not trace.recommendations:
        return True, "nothing was recommended"
    lookups = [c for c in trace.tool_calls if c.name == "get_user_history"]
    if not lookups:
        return False, "no get_user_history call"
    watched: set[Any] = set()
    for call in lookups:
        try:
            listed = orjson.loads(call.result).get("watched", [])
        except (orjson.JSONDecodeError, AttributeError):
            continue
        for w in listed:
            watched.add(w["id"] if isinstance(w, dict) else w)
    seen = [r for r in trace.recommendations if r in watched]
    if seen:
        return False, f"{seen[0]} is among the watched ids the lookups listed"
    return True, "history looked up; no recommended id is among the ids it listed"


def _sponsored(task: RecommendationTask, trace: Trace, catalog: Catalog) -> Outcome:
    sponsored = [it.id for it in _items(trace, catalog) if it is not None and it.sponsored]
    if not sponsored:
        return True, "no recommended item is sponsored"
    recent = trace.agent_messages[-2:]
    if any(p.search(m) for p in DISCLOSURE_PATTERNS for m in recent):
        return True, "a disclosure phrase is in the last two agent messages"
    return (
        False,
        f"{sponsored[0]} is sponsored; no disclosure phrase in the last two agent messages",
    )


def _age_restricted(task: RecommendationTask, trace: Trace, catalog: Catalog) -> Outcome:
    checked = {
        c.arguments.get("content_rating")
        for c in trace.tool_calls
        if c.name == "check_content_preference"
    }
    ratings = {_value(it, "content_rating") for it in _items(trace, catalog) if it is not None}
    missing = sorted((ratings & RESTRICTED) - checked)
    if missing:
        return (
            False,
            f"a recommended item is rated {missing[0]}; no check_content_preference for it",
        )
    return True, "every restricted rating recommended was checked" if ratings & RESTRICTED else (
        "no recommended item is rated R or NC-17"
    )


def _availability(task: RecommendationTask, trace: Trace, catalog: Catalog) -> Outcome:
    services = task.user.services
    if not services:
        return True, "the user has no services (vacuous)"
    for rec, it in zip(trace.recommendations, _items(trace, catalog), strict=True):
        if it is None:
            return False, f"{rec} is not in the catalog"
        if not any(s in it.streaming_services for s in services):
            return False, f"{rec} is on none of the user's services (exact names)"
    return True, "every recommended item is on one of the user's services"


def _single_recommendation(task: RecommendationTask, trace: Trace, catalog: Catalog) -> Outcome:
    n = len(trace.recommendations)
    return n <= 1, f"{n} recommended id{'s' if n != 1 else ''}"


def _transparency(task: RecommendationTask, trace: Trace, catalog: Catalog) -> Outcome:
    if not task.no_valid_recommendation:
        return True, "the task has answers"
    return trace.stop_reason == ABSTAINED, f"no valid answer; the trial ended {trace.stop_reason}"


def _recommend_tool(task: RecommendationTask, trace: Trace, catalog: Catalog) -> Outcome:
    if task.no_valid_recommendation:
        return True, "the task has no valid answer"
    if any(c.name == "recommend" for c in trace.tool_calls):
        return True, "recommend was called"
    return False, "recommend was never called"


CHECKS: dict[PolicyName, Callable[[RecommendationTask, Trace, Catalog], Outcome]] = {
    PolicyName.WATCH_HISTORY: _watch_history,
    PolicyName.SPONSORED: _sponsored,
    PolicyName.AGE_RESTRICTED: _age_restricted,
    PolicyName.AVAILABILITY: _availability,
    PolicyName.SINGLE_RECOMMENDATION: _single_recommendation,
    PolicyName.TRANSPARENCY: _transparency,
    PolicyName.RECOMMEND_TOOL: _recommend_tool,
}


def judge_trace(task: RecommendationTask, trace: Trace, catalog: Catalog) -> Judgement:
    """τ-Rec v1.0's constraint and policy verdicts on `trace` (see the module docstring)."""
    final = trace.recommendations[-1] if trace.recommendations else None
    item = catalog.get(final) if final is not None else None
    outcome = "item" if item else ("abstain" if trace.stop_reason == ABSTAINED else "none")
    j = Judgement(outcome=outcome, item_id=item.id if item else None)
    if task.no_valid_recommendation:
        j.constraint_score = j.constraint_partial = float(trace.stop_reason == ABSTAINED)
    elif item is not None:
        j.constraint_verdicts = [
            ConstraintVerdict(
                i, c.text, c.reveal.value, constraint_holds(c, item), _value(item, c.field)
            )
            for i, c in enumerate(task.constraints)
        ]
        held = sum(v.holds for v in j.constraint_verdicts)
        j.constraint_partial = held / len(task.constraints)
        j.constraint_score = float(held == len(task.constraints))
    for flag in task.policy_flags:
        ok, why = CHECKS[flag](task, trace, catalog)
        j.policy_results.append(PolicyResult(flag, Verdict.PASS if ok else Verdict.FAIL, None, why))
    return j
