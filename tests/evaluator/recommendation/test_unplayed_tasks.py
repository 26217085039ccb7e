"""A task of the suite that no log played (open mode): left out of pass^k under the
default rules, scored 0 under `--rules tau-rec`, as τ-Rec's run scores a task whose every
trial failed; both list it in `tasks_without_logs`."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from taurec.clients.agents.recommendation.oracle import OracleAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.evaluate import evaluate
from taurec.evaluator.resolver import Resolver
from taurec.server.settings import ServerSettings

PLAYED = ["t001", "t002", "t003"]


@pytest.fixture(scope="module")
def oracle_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("unplayed")
    settings = ServerSettings(suite="builtin", log_dir=out, run_label="oracle")
    connection = Connection("inproc", settings)
    runner = Runner(OracleAgent("builtin"), connection, out, "oracle", handle_signals=False)
    report = anyio.run(runner.run, plan(PLAYED, 1))
    assert report.failure is None
    return out


@pytest.mark.parametrize(("rules", "tasks_counted"), [("taurec", 3), ("tau-rec", 60)])
def test_a_task_no_log_played_counts_as_the_rules_profile_says(oracle_logs, rules, tasks_counted):
    check = evaluate([oracle_logs], Resolver(rules=rules))
    (group,) = aggregate(check.scores)
    assert group["mode"] == "open" and group["n_episodes"] == 3 and group["passed"] >= 1
    assert group["pass_k"]["1"] == pytest.approx(group["passed"] / tasks_counted)
    assert len(group["tasks_without_logs"]) == 57 and "t004" in group["tasks_without_logs"]
