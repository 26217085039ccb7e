"""Interrupted runs lose no finished episode, and --resume completes them exactly."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from support.hang_guard import HANG_GUARD_S
from support.scoring import score_groups as _groups
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.clients.runner.plan import INCOMPLETE_DIR, episode_logs, summarize_log

TASKS = ",".join(f"t{i:03d}" for i in range(1, 31))
OPTIONS = ["--trials", "2", "--tasks", TASKS]
RUN = [sys.executable, "-m", "taurec.clients.cli.run", "--agent", "scripted", *OPTIONS]
EPISODES = 60  # 30 built-in tasks x 2 trials
cli = CliRunner()


def _start(out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*RUN, "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for_logs(out: Path, proc: subprocess.Popen[str], n: int) -> None:
    deadline = time.monotonic() + HANG_GUARD_S
    while len(list(out.rglob("*.jsonl"))) < n:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.01)


def _complete(out: Path) -> int:
    return sum(summarize_log(p).complete for p in episode_logs(out))


def test_a_killed_run_finished_with_resume_scores_like_an_uninterrupted_one(
    tmp_path: Path,
) -> None:
    killed = tmp_path / "killed"
    proc = _start(killed)
    _wait_for_logs(killed, proc, 15)
    proc.kill()  # SIGKILL: no chance to clean up
    proc.wait(timeout=HANG_GUARD_S)
    assert _complete(killed) < EPISODES
    resumed = cli.invoke(app, ["run", *OPTIONS, "--out", str(killed), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert "skipping" in resumed.stderr
    assert _complete(killed) == EPISODES == len(episode_logs(killed))
    aside = list((killed / INCOMPLETE_DIR).rglob("*.incomplete"))
    assert all(not p.name.endswith(".jsonl") for p in aside)  # never scored

    straight = tmp_path / "straight"
    assert cli.invoke(app, ["run", *OPTIONS, "--out", str(straight)]).exit_code == 0
    assert _groups(killed) == _groups(straight)


def test_sigint_stops_the_run_keeping_every_finished_episode(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    proc = _start(out)
    _wait_for_logs(out, proc, 15)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=HANG_GUARD_S)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "--resume" in stderr and "Traceback" not in stderr
    assert "--concurrency 8" in stderr  # the resume command keeps the run's settings
    summaries = [summarize_log(p) for p in episode_logs(out)]
    finished = sum(s.complete for s in summaries)
    assert finished >= 15 - 8 and f"{finished} finished episodes are saved" in stderr
    assert sum(not s.complete for s in summaries) <= 8  # at most the ones in flight
    resumed = cli.invoke(app, ["run", *OPTIONS, "--out", str(out), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert _complete(out) == EPISODES
