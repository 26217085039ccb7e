"""`--rules tau-rec` against τ-Rec v1.0's own `CombinedEvaluator`, on the τ-Rec release.

Every case of support/taurec_cases.py (each policy's pass and fail, each loophole, each end
reason, on all 60 release tasks and on 16 variants that flag every policy: about 5,200
episodes) is converted to τ-Rec's ConversationTrace and scored by τ-Rec's code and by ours; constraint score, failed policies and reward must agree. τ-Rec's
source is read where it lies (../shared/third_party); the tests skip without it.

This checks the rules on our conversion of a log (`to_trace`); test_taurec_end_to_end.py
checks the conversion against the trace τ-Rec's own orchestrator records.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import pytest
from support.taurec_cases import cases
from support.third_party import TAU_REC, TAU_REC_SKIP, tau_rec_source

from taurec.catalog.mentions import TitleMatcher
from taurec.evaluator.recommendation.scoring import score_episode
from taurec.evaluator.recommendation.taurec_trace import Trace, TraceToolCall, to_task, to_trace
from taurec.evaluator.recommendation.taurec_v1_rules import judge_trace
from taurec.policies.checks import Verdict
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask
from taurec.tasks.suite import Suite, load_suite
from taurec.tasks.trajectory.format import Trajectory

pytestmark = pytest.mark.skipif(tau_rec_source() is None, reason=TAU_REC_SKIP)


Verdicts = tuple[float, frozenset[str], float]


@cache
def _ours() -> tuple[Suite, TitleMatcher]:
    suite = load_suite(f"tau-rec:{TAU_REC}")
    return suite, TitleMatcher(suite.catalog.items)


@cache
def _theirs() -> tuple[Any, dict[str, Any]]:
    from tau_rec.data_model.catalog import Catalog as TauCatalog
    from tau_rec.data_model.task import Task as TauTask
    from tau_rec.evaluator.evaluator import CombinedEvaluator

    evaluator = CombinedEvaluator(TauCatalog.from_json(str(TAU_REC / "catalog.json")))
    tasks = {f.stem: TauTask.from_json(str(f)) for f in sorted((TAU_REC / "tasks").glob("*.json"))}
    return evaluator, tasks


def _their_verdict(task: Any, trace: Trace) -> Verdicts:
    from tau_rec.data_model.conversation import ConversationTrace

    evaluator, _ = _theirs()
    result = evaluator.evaluate(task, ConversationTrace.model_validate(trace.model_dump()))
    violations = frozenset(result.policy_detail.violations)
    return result.constraint_score, violations, result.primary_reward


def _our_verdict(task: RecommendationTask, trajectory: Trajectory) -> Verdicts:
    suite, titles = _ours()
    s = score_episode(task, trajectory, suite.catalog, titles, rules="tau-rec")
    failed = frozenset(r.policy.value for r in s.policy_results if r.verdict is Verdict.FAIL)
    return s.constraint_score, failed, s.reward


@cache
def _tasks() -> list[tuple[RecommendationTask, Any]]:
    """Each release task with τ-Rec's reading of its file, then variants that flag every
    policy (users without services among them), converted with `to_task`."""
    from tau_rec.data_model.task import Task as TauTask

    suite, _ = _ours()
    _, their_tasks = _theirs()
    out = [(t, their_tasks[t.id]) for t in suite.tasks]
    for t in [t for t in suite.tasks if not t.user.services] + suite.tasks[:6]:
        variant = t.model_copy(update={"id": f"{t.id}-all-flags", "policy_flags": list(PolicyName)})
        out.append((variant, TauTask.model_validate(to_task(variant))))
    return out


@cache
def _scored() -> list[tuple[str, Any, Trajectory, Trace, Verdicts, Verdicts]]:
    """Each case with its τ-Rec task, trace, our verdicts and τ-Rec's."""
    suite, _ = _ours()
    out = []
    for task, theirs in _tasks():
        for case in cases(task, suite.catalog):
            trace = to_trace(case.trajectory)
            out.append(
                (
                    f"{task.id}:{case.name}",
                    theirs,
                    case.trajectory,
                    trace,
                    _our_verdict(task, case.trajectory),
                    _their_verdict(theirs, trace),
                )
            )
    return out


def test_tau_rec_rules_agree_with_tau_recs_evaluator_on_every_case():
    disagreements = [(n, ours, theirs) for n, _, _, _, ours, theirs in _scored() if ours != theirs]
    assert disagreements == []


def test_the_cases_cover_every_policys_pass_and_fail_and_every_stop_reason():
    outcomes: Counter[tuple[str, bool]] = Counter()
    stops: Counter[str] = Counter()
    rewards: Counter[float] = Counter()
    for _, task, _, trace, _, (_, violations, reward) in _scored():
        stops[str(trace.stop_reason)] += 1
        rewards[reward] += 1
        for flag in task.policy_flags:
            outcomes[(flag, flag not in violations)] += 1
    # τ-Rec's single_recommendation can only fail on two recommendations in one model
    # response, which these cases do not make: the trace-level test below and
    # test_taurec_end_to_end.py (batches played on both sides) cover its failure
    missing = [
        (p.value, ok)
        for p in PolicyName
        for ok in (True, False)
        if not outcomes[(p.value, ok)] and (p.value, ok) != ("single_recommendation", False)
    ]
    assert missing == []
    assert set(stops) == {"recommended", "abstained", "timeout"}
    assert rewards[0.0] and rewards[1.0]


def test_every_end_reason_is_among_the_cases():
    reasons = {traj.events[-1]["reason"] for _, _, traj, _, _, _ in _scored()}
    assert reasons == {"recommended", "abstained", "user_left", "max_turns", "agent_error"}


def test_tasks_converted_to_tau_recs_format_score_as_the_release_files_do():
    from tau_rec.data_model.task import Task as TauTask

    suite, _ = _ours()
    _, their_tasks = _theirs()
    for name, _, traj, _, _, _ in _scored()[::11]:
        task = suite.get(traj.header.task_id)
        if task is None:  # a variant
            continue
        trace = to_trace(traj)
        converted = TauTask.model_validate(to_task(task))
        assert _their_verdict(converted, trace) == _their_verdict(their_tasks[task.id], trace), name


def _trace(*recommended: str, stop: str = "recommended") -> Trace:
    calls = [
        TraceToolCall(name="recommend", arguments={"item_id": r}, result="{}") for r in recommended
    ]
    return Trace(
        task_id="x",
        model="m",
        trial=0,
        events=calls,
        recommendations=list(recommended),
        stop_reason=stop,  # type: ignore[arg-type]
    )


def test_two_recommendations_in_one_trace_agree_with_tau_rec():
    suite, _ = _ours()
    _, their_tasks = _theirs()
    flagged = [t for t in suite.tasks if "single_recommendation" in t.policy_flags]
    assert flagged
    for task in flagged:
        a, b = (it.id for it in suite.catalog.items[:2])
        trace = _trace(a, b)
        mine = judge_trace(task, trace, suite.catalog)
        failed = {r.policy.value for r in mine.policy_results if r.verdict is Verdict.FAIL}
        _, violations, _ = _their_verdict(their_tasks[task.id], trace)
        assert "single_recommendation" in failed
        assert failed == set(violations)
