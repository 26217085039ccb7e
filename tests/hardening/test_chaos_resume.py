"""Chaos: the HTTP server is killed (SIGKILL) mid-run, restarted on the same log folder and
run label, and `taurec run --resume` finishes the run. For a deterministic agent the result
must equal an uninterrupted run's: the same episodes, outcomes, transcripts and pass^k,
with each (task, trial) counted once; the killed server's unfinished logs are set aside
(kept, byte for byte, never scored).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from support.hang_guard import HANG_GUARD_S
from support.http_server import ServerProcess, http_server_process
from support.scoring import score_groups as _groups

from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import (
    INCOMPLETE_DIR,
    EpisodeSpec,
    episode_logs,
    set_aside,
    summarize_log,
)
from taurec.clients.runner.runner import Runner
from taurec.evaluator.logs import Resolver, score_files
from taurec.tasks.trajectory.reader import read_log

TASK_IDS = [f"t{i:03d}" for i in range(1, 7)]
TRIALS = 2
EPISODES = len(TASK_IDS) * TRIALS
RUN = [sys.executable, "-m", "taurec.clients.cli.run", "--agent", "scripted"]


def _run(
    server: ServerProcess, out: Path, *extra: str, tasks: list[str] = TASK_IDS
) -> subprocess.Popen[str]:
    """`taurec run` of the scripted agent against `server`, its logs read from `out`."""
    args = [*RUN, "--trials", str(TRIALS), "--tasks", ",".join(tasks), "--concurrency", "2"]
    args += ["--transport", "http", "--url", server.url, "--out", str(out), *extra]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        _, stderr = proc.communicate(timeout=HANG_GUARD_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stderr = proc.communicate()
        pytest.fail(f"taurec run hung: {stderr}")
    return proc.returncode, stderr


def _logs(out: Path) -> tuple[list[Path], list[Path]]:
    """(finished, unfinished) episode logs under `out`, set-aside ones excluded; unfinished:
    no end record, or ended by a server shutting down (what resume plays again)."""
    summaries = [summarize_log(p) for p in episode_logs(out)]
    return [s.path for s in summaries if s.finished], [s.path for s in summaries if not s.finished]


def _in_flight(out: Path) -> bool:
    """Some episodes finished, and one just started (a few lines: far from its commit)."""
    finished, unfinished = _logs(out)
    return len(finished) >= 3 and any(len(p.read_bytes().splitlines()) <= 4 for p in unfinished)


def _interrupt(server: ServerProcess, out: Path, how: str) -> tuple[int, str]:
    """Start the run, stop the server `how` once an episode is in flight; the run's exit
    code and stderr."""
    run = _run(server, out)
    deadline = time.monotonic() + HANG_GUARD_S
    while True:
        if _in_flight(out):
            server.freeze()  # the files stand still while we look again
            if _in_flight(out):
                break
            server.thaw()
        assert run.poll() is None, f"the run ended before the interruption: {_finish(run)}"
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.005)
    if how == "SIGKILL":
        server.kill()  # a crash, an OOM kill: in-flight logs keep no end record
    else:
        server.proc.send_signal(signal.SIGTERM)  # a graceful stop: the server ends them
        server.thaw()
        server.proc.wait(timeout=HANG_GUARD_S)
    return _finish(run)


def _outcomes(out: Path) -> dict[tuple[str, int], tuple[Any, ...]]:
    """Each scored episode's verdict and transcript (ids and timings left out), by (task,
    trial); fails if a (task, trial) is scored twice."""
    found: dict[tuple[str, int], tuple[Any, ...]] = {}
    for s in score_files(episode_logs(out), Resolver()):
        assert (s.task_id, s.trial) not in found, f"{s.task_id} trial {s.trial} scored twice"
        assert not s.infra_error and not s.problems, (s.path, s.problems)
        found[(s.task_id, s.trial)] = (
            s.end_reason, s.outcome, s.item_id, s.reward, s.constraint_score,
            s.policy_score, s.turns, s.tool_calls, _transcript(Path(s.path)),
        )  # fmt: skip
    return found


def _transcript(path: Path) -> list[tuple[Any, ...]]:
    parsed = read_log(path)
    assert parsed.header is not None
    events = []
    for e in parsed.events:
        arguments = {k: v for k, v in e.get("arguments", {}).items() if k != "episode_id"}
        fields = ("type", "name", "content", "text", "is_error", "reason", "item_id")
        events.append((*(e.get(k) for k in fields), arguments))
    return [(parsed.header.seed,), *events]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same run, never interrupted: its log folder."""
    out = tmp_path_factory.mktemp("uninterrupted")
    with http_server_process(out, "--run-label", "straight") as server:
        code, stderr = _finish(_run(server, out))
    assert code == 0, stderr
    return out


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_a_server_stopped_mid_run_restarted_and_resumed_scores_like_an_uninterrupted_run(
    tmp_path: Path, uninterrupted: Path, how: str
) -> None:
    out = tmp_path / "logs"
    with http_server_process(out, "--run-label", "chaos") as server:
        code, stderr = _interrupt(server, out, how)
    assert code == 1, stderr
    assert "the run failed" in stderr and "--resume" in stderr and "Traceback" not in stderr
    finished, unfinished = _logs(out)
    assert unfinished and len(finished) < EPISODES
    if how == "SIGTERM":  # every log has its end record: the in-flight ones say why
        assert all(summarize_log(p).cut_off for p in unfinished)
    else:
        assert not any(summarize_log(p).complete for p in unfinished)
    kept = {p.relative_to(out): p.read_bytes() for p in unfinished}
    print(
        f"\nchaos ({how}): server stopped with {len(finished)} of {EPISODES} episodes "
        f"finished and {len(kept)} in flight"
    )

    with http_server_process(out, "--run-label", "chaos") as server:  # the same folders
        code, stderr = _finish(_run(server, out, "--resume"))
    assert code == 0, stderr
    assert f"set {len(kept)} unfinished episode logs aside" in stderr
    assert f"skipping {len(finished)} finished episodes" in stderr

    # every (task, trial) once, finished; the interrupted logs set aside, byte for byte
    finished, unfinished = _logs(out)
    assert len(finished) == EPISODES and not unfinished
    aside = {
        p.relative_to(out / INCOMPLETE_DIR): p.read_bytes()
        for p in (out / INCOMPLETE_DIR).rglob("*")
        if p.is_file()
    }
    assert aside == {Path(f"{rel}.incomplete"): data for rel, data in kept.items()}

    resumed = _outcomes(out)
    assert len(resumed) == EPISODES
    assert resumed == _outcomes(uninterrupted)
    groups = _groups(out)
    assert groups == _groups(uninterrupted)
    assert [(g["n_episodes"], g["infra_errors"]) for g in groups] == [(EPISODES, 0)]
    assert groups[0]["pass_k"]  # pass^1 .. pass^TRIALS, equal in both runs


def test_a_run_whose_out_is_not_the_http_servers_log_dir_stops_before_playing(
    tmp_path: Path,
) -> None:
    server_logs, elsewhere = tmp_path / "server-logs", tmp_path / "elsewhere"
    specs = [EpisodeSpec(t, k) for k in range(TRIALS) for t in TASK_IDS[:2]]
    with http_server_process(server_logs, "--run-label", "r") as server:
        connection = Connection("http", url=server.url)
        runner = Runner(ScriptedAgent(), connection, elsewhere, "r", handle_signals=False)
        report = anyio.run(runner.run, specs)
        assert report.failure is not None and not report.results
        assert "does not write its episode logs under --log-dir" in report.failure
        # one episode was started to find out, and left without an end record
        complete, incomplete = _logs(server_logs)
        assert not complete and len(incomplete) == 1
        assert not elsewhere.exists()

        code, stderr = _finish(_run(server, server_logs, "--resume", tasks=TASK_IDS[:2]))
    assert code == 0, stderr
    assert "set 1 unfinished episode logs aside" in stderr
    complete, incomplete = _logs(server_logs)
    assert len(complete) == len(specs) and not incomplete
    assert sorted(_outcomes(server_logs)) == sorted((s.task_id, s.trial) for s in specs)


def test_setting_aside_never_overwrites_an_earlier_set_aside_log(tmp_path: Path) -> None:
    log = tmp_path / "r" / "t001" / "trial0-0123456789ab.jsonl"
    earlier = tmp_path / INCOMPLETE_DIR / "r" / "t001" / f"{log.name}.incomplete"
    for path, text in ((log, "now\n"), (earlier, "earlier\n")):
        path.parent.mkdir(parents=True)
        path.write_text(text)
    (moved,) = set_aside(tmp_path, [log])
    assert moved == earlier.with_name(f"{log.name}.incomplete.1")
    assert (earlier.read_text(), moved.read_text()) == ("earlier\n", "now\n")
    assert not log.exists() and episode_logs(tmp_path) == []
