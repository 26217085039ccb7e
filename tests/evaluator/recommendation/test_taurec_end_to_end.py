"""`--rules tau-rec` on our own logs against τ-Rec v1.0 run end to end, the trace made by
τ-Rec itself.

Each script of support/taurec_scripts.py (the reference agents' behaviours on every one of
the 60 release tasks; scripted mistakes, probes and hand-made batches each on a third of
them, in turn: about 900 episodes) is played twice, with the same agent responses and the
same user replies: through τ-Rec's own
`Orchestrator` and `ToolKit`, scored by its `CombinedEvaluator`; and through our server
in memory by our LLM contestant, its log scored with `--rules tau-rec`. The constraint
score, each flagged policy's verdict and the reward must agree, on each task and on a
variant of it that flags every policy. Nothing of ours builds τ-Rec's trace, so this
checks the conversion (taurec_trace.py) as well as the rules. τ-Rec's source is read
where it lies (../shared/third_party); the tests skip without it.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from support.taurec_drivers import UserScripts, our_log, their_trace
from support.taurec_scripts import REFERENCE, scripts
from support.third_party import TAU_REC, TAU_REC_SKIP, tau_rec_source

from taurec.catalog.mentions import TitleMatcher
from taurec.evaluator.recommendation.scoring import score_episode
from taurec.evaluator.recommendation.taurec_trace import to_task, to_trace
from taurec.policies.checks import Verdict
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask
from taurec.tasks.suite import Suite, load_suite
from taurec.tasks.trajectory.format import Trajectory

pytestmark = [
    pytest.mark.skipif(tau_rec_source() is None, reason=TAU_REC_SKIP),
    pytest.mark.slow,  # about 900 episodes on each side: started first
]

SPEC = f"tau-rec:{TAU_REC}"
#: Each task plays the reference behaviours (the first scripts) and every third other one.
EVERY = 3
#: (constraint score, {policy: passed}, reward)
Verdicts = tuple[float, dict[str, bool], float]


@cache
def _suite() -> tuple[Suite, TitleMatcher]:
    suite = load_suite(SPEC)
    return suite, TitleMatcher(suite.catalog.items)


def _their_verdicts(evaluator: Any, task: Any, trace: Any) -> Verdicts:
    result = evaluator.evaluate(task, trace)
    failed = set(result.policy_detail.violations)
    flags = {f: f not in failed for f in task.policy_flags}
    return result.constraint_score, flags, result.primary_reward


def _our_verdicts(task: RecommendationTask, trajectory: Trajectory) -> Verdicts:
    suite, titles = _suite()
    s = score_episode(task, trajectory, suite.catalog, titles, rules="tau-rec")
    flags = {r.policy.value: r.verdict is not Verdict.FAIL for r in s.policy_results}
    return s.constraint_score, flags, s.reward


async def _play(log_dir: Path) -> list[dict[str, Any]]:
    """Every script on every task, on both sides; one row per (script, task variant)."""
    from tau_rec.catalog.search import CatalogSearch
    from tau_rec.data_model.catalog import Catalog as TauCatalog
    from tau_rec.data_model.task import Task as TauTask
    from tau_rec.environment.tools import ToolKit
    from tau_rec.evaluator.evaluator import CombinedEvaluator

    suite, _ = _suite()
    their_catalog = TauCatalog.from_json(str(TAU_REC / "catalog.json"))
    search = CatalogSearch(their_catalog)
    evaluator = CombinedEvaluator(their_catalog)
    users = UserScripts()
    settings = ServerSettings(log_dir=log_dir, suite=SPEC, run_label="e2e")
    rows = []
    async with Client(build_server(settings, make_user=users)) as client:
        tools = (await client.list_tools()).tools
        for at, task in enumerate(suite.tasks):
            theirs = TauTask.from_json(str(TAU_REC / "tasks" / f"{task.id}.json"))
            variant = task.model_copy(update={"policy_flags": list(PolicyName)})
            their_variant = TauTask.model_validate(to_task(variant))
            toolkit = ToolKit(their_catalog, search, theirs.user_history)
            for trial, script in enumerate(scripts(task, suite.catalog)):
                if not script.name.startswith(REFERENCE) and (trial + at) % EVERY:
                    continue
                trace = await their_trace(script, theirs, toolkit, trial)
                ours = await our_log(client, tools, users, log_dir, script, task.id, trial)
                for mine, their_task in ((task, theirs), (variant, their_variant)):
                    rows.append(
                        {
                            "name": f"{task.id}:{script.name}:{len(mine.policy_flags)} flags",
                            "trace": trace,
                            "log": ours,
                            "theirs": _their_verdicts(evaluator, their_task, trace),
                            "ours": _our_verdicts(mine, ours),
                        }
                    )
    return rows


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    log_dir = tmp_path_factory.mktemp("taurec-e2e")
    return anyio.run(_play, log_dir)


def test_tau_rec_rules_on_our_logs_agree_with_tau_rec_run_end_to_end(played):
    disagreements = [
        (r["name"], r["ours"], r["theirs"]) for r in played if r["ours"] != r["theirs"]
    ]
    episodes = len(played) // 2
    assert episodes >= 600
    assert disagreements == [], f"{len(disagreements)} of {len(played)} disagree"


def test_our_trace_holds_tau_recs_calls_recommendations_stop_reason_and_messages(played):
    """The conversion itself, beside τ-Rec's own trace: τ-Rec opens with a greeting of its
    own (our user opens), and its get_user_history carries the user id (ours takes none)."""
    differ = []
    for r in played[::2]:
        theirs, ours = r["trace"], to_trace(r["log"], *_task_and_catalog(r["log"]))
        agent = [m.content for m in theirs.messages if m.role.value == "agent"][1:]
        expected = (
            [c.name for c in theirs.tool_calls],
            theirs.recommendations,
            theirs.stop_reason.value,
            agent,
        )
        got = (
            [c.name for c in ours.tool_calls],
            ours.recommendations,
            ours.stop_reason,
            ours.agent_messages,
        )
        if got != expected:
            differ.append((r["name"], got, expected))
    assert differ == []


def _task_and_catalog(log: Trajectory) -> tuple[RecommendationTask, Any]:
    suite, _ = _suite()
    task = suite.get(log.header.task_id)
    assert task is not None
    return task, suite.catalog


def test_the_episodes_cover_every_policys_pass_and_fail_and_every_stop_reason(played):
    outcomes: Counter[tuple[str, bool]] = Counter()
    stops: Counter[str] = Counter()
    for r in played:
        stops[r["trace"].stop_reason.value] += 1
        for policy, ok in r["theirs"][1].items():
            outcomes[(policy, ok)] += 1
    missing = [
        (p.value, ok) for p in PolicyName for ok in (True, False) if not outcomes[(p.value, ok)]
    ]
    assert missing == []
    assert set(stops) == {"recommended", "abstained", "timeout"}
    rewards = Counter(r["theirs"][2] for r in played)
    assert rewards[0.0] and rewards[1.0]


def test_batched_calls_reach_the_log_with_their_batch(played):
    row = next(r for r in played if ":rec-rec:" in r["name"])
    calls = [e for e in row["log"].events if e["type"] == "tool_call"]
    assert [c["name"] for c in calls] == ["recommend", "recommend"]
    assert calls[0]["batch"] == calls[1]["batch"] is not None
    assert row["log"].events[-1]["reason"] == "recommended"


def test_calls_sent_side_by_side_reach_the_log_as_the_commits_batch(played):
    """A client naming no batch that sends a response's calls concurrently: the server
    logs the calls that came while the commit ran, refused, with a batch made for it."""
    rows = [r for r in played if "-side-by-side:" in r["name"]]
    assert len(rows) >= 20
    for row in rows:
        calls = [e for e in row["log"].events if e["type"] == "tool_call"]
        first, *rest = calls
        assert rest and "batch" not in first, row["name"]
        assert {c["batch"] for c in rest} == {f"concurrent:{first['call_id']}"}, row["name"]


def test_every_recommend_message_of_the_committing_response_is_kept(played):
    """An empty `recommend("")` and then the commit carrying the message: τ-Rec records the
    response's text, so the trace's last agent message holds that message (the disclosure
    in it counts)."""
    row = next(r for r in played if ":empty-then-disclosed:" in r["name"])
    trace = to_trace(row["log"], *_task_and_catalog(row["log"]))
    assert "sponsored" in trace.agent_messages[-1]
    assert row["ours"] == row["theirs"]
