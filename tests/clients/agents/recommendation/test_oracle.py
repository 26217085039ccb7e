"""The oracle reads the answer key and plays through the public tools: the suite's ceiling."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.third_party import TAU_REC

from taurec.clients.agents.recommendation.oracle import OracleAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.aggregate import aggregate
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite

#: τ-Rec v1.0 tasks whose user has no streaming service and that do not flag availability.
TAU_REC_NO_SERVICE_TASKS = {"task_029", "task_030", "task_041", "task_044", "task_045"}


async def _run(agent: OracleAgent, suite: str, out: Path, trials: int) -> list:
    loaded = load_suite(suite)
    settings = ServerSettings(suite=suite, log_dir=out, run_label="oracle")
    runner = Runner(agent, Connection("inproc", settings), out, "oracle", handle_signals=False)
    report = await runner.run(plan([t.id for t in loaded.tasks], trials))
    assert report.failure is None and not report.interrupted
    return report.results


async def test_the_oracle_passes_every_builtin_task_in_every_trial(tmp_path: Path) -> None:
    results = await _run(OracleAgent("builtin"), "builtin", tmp_path, trials=2)
    (group,) = aggregate([r.score for r in results])
    assert group["n_episodes"] == 120 and group["infra_errors"] == 0
    assert group["pass_k"] == {"1": 1.0, "2": 1.0}


async def test_the_oracle_never_messages_the_user_and_discloses_sponsorship(
    tmp_path: Path,
) -> None:
    results = await _run(OracleAgent("builtin"), "builtin", tmp_path, trials=1)
    for r in results:
        assert r.score.turns == 0
        sponsored = [p for p in r.score.policy_results if p.policy.value == "sponsored"]
        assert all(p.verdict.value != "fail" for p in sponsored)


async def test_on_tau_rec_the_oracle_passes_every_task(tmp_path: Path) -> None:
    if not (TAU_REC / "catalog.json").is_file():
        pytest.skip("the tau-Rec release is not at ../shared/third_party/tau-rec-v1.0")
    suite = f"tau-rec:{TAU_REC}"
    agent = OracleAgent(suite)
    results = await _run(agent, suite, tmp_path, trials=1)
    assert len(results) == 60 and [r.spec.task_id for r in results if not r.passed] == []


def test_on_tau_rec_the_oracle_commits_where_no_availability_policy_applies() -> None:
    if not (TAU_REC / "catalog.json").is_file():
        pytest.skip("the tau-Rec release is not at ../shared/third_party/tau-rec-v1.0")
    agent = OracleAgent(f"tau-rec:{TAU_REC}")
    for task_id in sorted(TAU_REC_NO_SERVICE_TASKS):
        task = agent.suite.get(task_id)
        assert task is not None and task.user.services == []
        assert "availability" not in task.policy_flags
        assert agent.answer(task_id) is not None, task_id
