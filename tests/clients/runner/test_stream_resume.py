"""A stream run killed mid-way (a stream cut off between its episodes) resumes: the
finished streams are kept, the cut-off one is set aside and played again, and the
scores equal those of an uninterrupted run."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
from support.hang_guard import HANG_GUARD_S
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.clients.runner.plan import episode_logs, summarize_log
from taurec.evaluator.cli.main import app as evaluator

TASKS = ",".join(
    f"stream-{s}-{f}-{k:03d}"
    for s, f, k in [
        ("variable-category", "regret", 0), ("variable-category", "stars", 1),
        ("variable-persona", "regret", 0), ("variable-persona", "stars", 1),
        ("variable-settings", "regret", 0), ("variable-settings", "stars", 1),
    ]
)  # fmt: skip
OPTIONS = ["--suite", "stream:builtin", "--agent", "learner", "--trials", "1", "--tasks", TASKS]
RUN = [sys.executable, "-m", "taurec.clients.cli.run", *OPTIONS, "--concurrency", "1"]


def _cut_off_mid_stream(out: Path) -> None:
    """Start the run and kill it (SIGKILL) while a stream's log has episodes but no end."""
    proc = subprocess.Popen(
        [*RUN, "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + HANG_GUARD_S
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            logs = episode_logs(out) if out.exists() else []
            done = sum(summarize_log(p).complete for p in logs)
            open_with_episodes = [
                p
                for p in logs
                if not summarize_log(p).complete and p.read_bytes().count(b'"recommend_item"') >= 2
            ]
            if done >= 1 and open_with_episodes:
                return
            time.sleep(0.005)
        raise AssertionError("the run ended before a stream could be cut off")
    finally:
        proc.kill()
        proc.wait(timeout=HANG_GUARD_S)


def _groups(out: Path) -> list[dict[str, Any]]:
    result = CliRunner().invoke(evaluator, ["score", str(out), "--json"])
    assert result.exit_code == 0, result.output
    groups = orjson.loads(result.stdout)["groups"]
    for g in groups:
        g.pop("plan_id")
    return groups


def test_a_stream_cut_off_mid_way_resumes_and_scores_like_an_uninterrupted_run(
    tmp_path: Path,
) -> None:
    killed = tmp_path / "killed"
    _cut_off_mid_stream(killed)
    assert not all(summarize_log(p).complete for p in episode_logs(killed))
    resumed = CliRunner().invoke(app, ["run", *OPTIONS, "--out", str(killed), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert [summarize_log(p).complete for p in episode_logs(killed)] == [True] * 6

    straight = tmp_path / "straight"
    assert CliRunner().invoke(app, ["run", *OPTIONS, "--out", str(straight)]).exit_code == 0
    assert _groups(killed) == _groups(straight)
