"""Dialogue metrics in `evaluator score`: next to pass^k in the table, the markdown and
--json, for a short run with the agenda user."""

from __future__ import annotations

from pathlib import Path

import anyio
import orjson
import pytest
from typer.testing import CliRunner

from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.cli.main import app
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite

runner = CliRunner()


async def _play_logs(out: Path) -> None:
    settings = ServerSettings(log_dir=out, run_label="agenda", simulator="agenda-requests")
    run = Runner(ScriptedAgent(), Connection("inproc", settings), out, "s", handle_signals=False)
    tasks = [t.id for t in load_suite("builtin").tasks[:3]]
    report = await run.run(plan(tasks, 1))
    assert report.failure is None


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("agenda")
    anyio.run(_play_logs, out)
    return out


def test_score_json_gains_the_dialogue_metrics_as_new_keys(logs: Path) -> None:
    (group,) = orjson.loads(runner.invoke(app, ["score", str(logs), "--json"]).stdout)["groups"]
    d = group["dialogue"]
    assert d["episodes"] == 3 and {"sr", "srrr", "rdl", "utterances"} <= set(d)
    assert 0 <= d["sr"] <= 1 and d["utterances"] > 2
    assert "pass_k" in group  # the existing keys keep their shape


def test_the_score_table_shows_sr_srrr_rdl_and_turns(logs: Path) -> None:
    out = runner.invoke(app, ["score", str(logs)]).stdout
    assert "SR / SRRR / RDL" in out and "avg turns" in out
    assert "simulator faults: agenda" in out


def test_the_markdown_table_has_the_dialogue_columns(logs: Path) -> None:
    head = runner.invoke(app, ["score", str(logs), "--format", "markdown"]).stdout.splitlines()[0]
    assert head.endswith("| SR | SRRR | RDL | avg turns | utterances | sim faults |")


def test_every_message_of_the_log_carries_its_acts(logs: Path) -> None:
    for path in logs.rglob("*.jsonl"):
        for line in path.read_bytes().splitlines():
            record = orjson.loads(line)
            if record["type"] == "user_message":
                assert record["acts_by"] == "rule" and record["acts"]
            elif record["type"] == "agent_message" and record.get("delivered", True):
                assert record["acts_by"] == "nlu" and record["acts"]
