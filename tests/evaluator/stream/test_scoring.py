"""Scoring stream runs: a planned stream whose log is missing counts every episode as
regret = best, in the stream report (never a smaller n)."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.evaluator.cli.main import app as evaluator
from taurec.tasks.suite import load_suite

TASKS = ["stream-variable-category-regret-000", "stream-variable-persona-regret-000"]


def test_a_missing_planned_stream_counts_as_regret_best_in_every_episode(tmp_path: Path) -> None:
    run = ["run", "--suite", "stream:builtin", "--agent", "ceiling", "--trials", "1"]
    result = CliRunner().invoke(app, [*run, "--tasks", ",".join(TASKS), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    (gone,) = [p for p in tmp_path.rglob("*.jsonl") if TASKS[1] in str(p)]
    gone.unlink()
    scored = CliRunner().invoke(evaluator, ["score", str(tmp_path), "--json"])
    (group,) = orjson.loads(scored.stdout)["groups"]
    assert group["kind"] == "stream" and group["n_episodes"] == 2
    task = next(t for t in load_suite("stream:builtin").tasks if t.id == TASKS[1])
    missing = group["by_setting"]["variable_persona"]
    assert missing["avg_regret"] == sum(e.best for e in task.episodes) / len(task.episodes)
    assert group["by_setting"]["variable_category"]["avg_regret"] == 0.0
