"""Resume follows a sealed run's register (runner/resume.py): it plays exactly what the
server lets start again and the evaluator would otherwise count as failed, and no more."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from support.scoring import score_groups
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.clients.runner import run_agent
from taurec.clients.runner.plan import INCOMPLETE_DIR, EpisodeSpec, episode_logs, summarize_log
from taurec.clients.runner.resume import playable
from taurec.clients.runner.session import RunStart, follow_register
from taurec.evaluator.cli.main import app as evaluator
from taurec.server.sealed_run import SealedRun
from taurec.tasks.runs.plan import new_plan
from taurec.tasks.runs.register import REGISTER_NAME, read_register
from taurec.tasks.trajectory.signing import LogKey

TASKS = ["t001", "t004"]
# one episode at a time, so the register's last line is the last episode's end
RUN = ["run", "--trials", "1", "--tasks", ",".join(TASKS), "--concurrency", "1"]
cli = CliRunner()


class Abstainer:
    label = "abstainer"

    async def run(self, episode: object) -> None:
        await episode.recommend(None)  # type: ignore[attr-defined]


def _register(out: Path) -> Path:
    (path,) = out.glob(f"plan-*/{REGISTER_NAME}")
    return path


def _drop_last_lines(path: Path, n: int) -> None:
    """What a kill before the last `n` lines were appended leaves (the chain still holds)."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-n]))


def _log_of(out: Path, task_id: str) -> Path:
    (log,) = (p for p in episode_logs(out) if f"/{task_id}/" in p.as_posix())
    return log


def _failures(out: Path) -> list[str]:
    result = cli.invoke(evaluator, ["score", str(out), "--json"])
    return [p for p in orjson.loads(result.stdout)["problems"] if "counts as failed" in p]


def test_a_kill_between_the_log_end_and_the_register_end_is_replayed_and_scores_as_uninterrupted(
    tmp_path: Path,
) -> None:
    straight, killed = tmp_path / "straight", tmp_path / "killed"
    assert cli.invoke(app, [*RUN, "--out", str(straight)]).exit_code == 0
    assert cli.invoke(app, [*RUN, "--out", str(killed)]).exit_code == 0
    register = _register(killed)
    _drop_last_lines(register, 1)  # the SIGKILL landed after the log's end, before this
    log = _log_of(killed, "t004")
    latest = read_register(register.read_bytes(), None).latest()
    assert latest[("t004", 0)].end_reason is None and summarize_log(log).finished
    assert _failures(killed)  # as it stands, the evaluator counts t004 as failed
    kept = log.read_bytes()

    resumed = cli.invoke(app, [*RUN, "--out", str(killed), "--resume"])

    assert resumed.exit_code == 0, resumed.output
    assert "set 1 complete episode logs aside" in resumed.stderr
    assert "skipping 1 finished episodes" in resumed.stderr
    aside = killed / INCOMPLETE_DIR / f"{log.relative_to(killed)}.incomplete"
    assert aside.read_bytes() == kept  # nothing lost, out of the evaluator's sight
    replayed = read_register(register.read_bytes(), None).latest()[("t004", 0)]
    assert (replayed.attempt, replayed.end_reason) == (2, summarize_log(aside).end_reason)
    assert not _failures(killed)
    assert score_groups(killed) == score_groups(straight)


@pytest.mark.parametrize("damage", ["missing", "incomplete"])
def test_an_episode_the_register_ended_without_a_whole_log_is_not_played_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    out = tmp_path / "logs"
    run_agent(Abstainer(), tasks=TASKS, out=out, concurrency=1, quiet=True)
    log = _log_of(out, "t004")
    if damage == "missing":
        log.unlink()
    else:
        _drop_last_lines(log, 1)  # its end record lost, the register's end kept
    before = _failures(out)
    assert len(before) == 1 and "t004 trial 0" in before[0]
    recorded = read_register(_register(out).read_bytes(), None).latest()

    report = run_agent(Abstainer(), tasks=TASKS, out=out, resume=True, concurrency=1)

    assert report.results == []  # the server would refuse it: played already
    shown = capsys.readouterr().err
    assert "1 episodes count as failed and cannot be played again" in shown
    assert "aside" not in shown and not (out / INCOMPLETE_DIR).exists()
    assert (log.exists(), _failures(out)) == (damage == "incomplete", before)
    assert read_register(_register(out).read_bytes(), None).latest() == recorded


def test_a_second_attempt_cut_between_the_two_writes_is_not_played_a_third_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "logs"
    run_agent(Abstainer(), tasks=TASKS, out=out, concurrency=1, quiet=True)
    _drop_last_lines(_register(out), 1)
    again = run_agent(Abstainer(), tasks=TASKS, out=out, resume=True, concurrency=1, quiet=True)
    assert [r.spec for r in again.results] == [EpisodeSpec("t004", 0)]
    _drop_last_lines(_register(out), 1)  # the second attempt's end lost the same way
    second = _log_of(out, "t004")
    assert summarize_log(second).finished

    report = run_agent(Abstainer(), tasks=TASKS, out=out, resume=True, concurrency=1)

    assert report.results == []
    shown = capsys.readouterr().err
    assert "1 episodes count as failed and cannot be played again" in shown
    assert "skipping 1 finished episodes" in shown and second.exists()
    (failed,) = _failures(out)
    assert "t004 trial 0 counts as failed: not ended" in failed  # as resume said


def test_resume_plays_exactly_what_the_server_admits_after_reopening_its_register(
    tmp_path: Path,
) -> None:
    tasks = ["never", "open", "ended", "cut", "open_twice", "replayed"]
    plan = new_plan(
        label="contestant", suite_id="s", suite_spec="builtin", suite_sha256="0" * 64,
        catalog_sha256="0" * 64, task_ids=tasks, trials=1,
    )  # fmt: skip
    key = LogKey(b"a test key for this register", "test")
    first = SealedRun(plan, tmp_path, key, server_version="test")

    def start(run: SealedRun, task_id: str) -> str:
        attempt = run.reserve(task_id, 0)
        episode_id = f"{task_id}-{attempt}"
        run.started(task_id, 0, attempt, episode_id, run.folder / f"{episode_id}.jsonl")
        return episode_id

    def end(run: SealedRun, task_id: str, episode_id: str, *, cut: bool = False) -> None:
        run.ended(task_id, 0, episode_id, "recommended", None, "c", cut_by_server=cut)

    for task_id in ("open", "open_twice", "replayed"):
        start(first, task_id)  # left open: a kill
    end(first, "ended", start(first, "ended"))
    end(first, "cut", start(first, "cut"), cut=True)
    second = SealedRun(plan, tmp_path, key, server_version="test")  # marks the open ones
    start(second, "open_twice")  # a second attempt, left open too
    end(second, "replayed", start(second, "replayed"))

    state = read_register(second.path.read_bytes(), key)
    latest = state.latest()
    resumed = [s for s in plan.slots() if playable(latest.get(s))]
    reopened = SealedRun(plan, tmp_path, key, server_version="test")
    assert resumed == reopened.remaining() == [("never", 0), ("open", 0), ("cut", 0)]


def test_a_run_without_a_register_resumes_by_its_logs(tmp_path: Path) -> None:
    plan = new_plan(
        label="contestant", suite_id="s", suite_spec="builtin", suite_sha256="0" * 64,
        catalog_sha256="0" * 64, task_ids=["t001"], trials=1,
    )  # fmt: skip
    run = RunStart([EpisodeSpec("t001", 0)], [])
    assert follow_register(tmp_path, run, None) is run  # open mode, an HTTP server's plan
    assert follow_register(tmp_path, run, plan) is run  # killed before its server started
