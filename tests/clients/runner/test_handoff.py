"""The driver's commit of handed-back episodes: each is written once, whole, and recorded
in the run register; a crash between steps leaves something a resume repairs."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

import orjson
import pytest
from support.ray_agents import scripted

from taurec.clients.runner.handoff import Handoff
from taurec.clients.runner.plan import INCOMPLETE_DIR, EpisodeSpec, episode_logs, plan
from taurec.clients.runner.scratch_episode import EpisodeJob, PlayedEpisode, play_in_scratch
from taurec.clients.runner.sealing import local_plan
from taurec.evaluator.logs import Resolver
from taurec.server.settings import ServerSettings
from taurec.tasks.runs.plan import read_plan
from taurec.tasks.runs.register import read_register
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.signing import LogKey, load_log_key

TASKS = ["t001", "t002"]


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, Path]:
    """(out, plan path) of a sealed plan of TASKS x 1 trial."""
    out = tmp_path / "out"
    specs = plan(TASKS, 1)
    _, path = local_plan(out, "scripted", load_suite("builtin"), TASKS, 1, specs, resume=False)
    return out, path


def _played(plan_path: Path, spec: EpisodeSpec, scratch: Path) -> PlayedEpisode:
    job = EpisodeJob(
        make_agent=partial(scripted),
        transport="inproc",
        settings=ServerSettings(suite="builtin", agent_label="scripted"),
        plan_name=plan_path.name,
        plan_bytes=plan_path.read_bytes(),
        run_id=read_plan(plan_path).run_id,
        spec=spec,
        scratch_root=str(scratch),
    )
    return play_in_scratch(job)


def _handoff(out: Path, plan_path: Path) -> Handoff:
    return Handoff(plan_path, out, load_log_key(create=True))


def _attempts(handoff: Handoff) -> list[tuple[str, int, int, str | None]]:
    state = read_register(handoff.sealed.path.read_bytes(), handoff.key)
    assert state.problem is None, state.problem
    return [(a.task_id, a.trial, a.attempt, a.end_reason) for a in state.attempts]


def test_a_worker_hands_back_a_finished_log_and_leaves_no_scratch(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    _, plan_path = run
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    played = _played(plan_path, EpisodeSpec("t001", 0), scratch)
    assert played.log is not None and played.log_name is not None
    assert played.log_name.startswith("t001/trial0-") and played.log_name.endswith(".jsonl")
    assert orjson.loads(played.log.splitlines()[-1])["type"] == "end"
    assert played.log_chain is not None and played.end_reason == "recommended"
    assert list(scratch.iterdir()) == []


def test_a_committed_episode_is_written_once_recorded_and_scored(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    out, plan_path = run
    handoff = _handoff(out, plan_path)
    played = _played(plan_path, EpisodeSpec("t001", 0), tmp_path)
    result = handoff.commit(played, Resolver())
    assert result.error is None and result.score is not None and result.score.passed
    assert result.log is not None and result.log.read_bytes() == played.log
    assert _attempts(handoff) == [("t001", 0, 1, "recommended")]
    assert handoff.todo(plan(TASKS, 1)) == [EpisodeSpec("t002", 0)]
    assert [p.name for p in result.log.parent.iterdir()] == [result.log.name]  # no temp left


def test_a_second_delivery_of_an_episode_is_not_recorded(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    out, plan_path = run
    handoff = _handoff(out, plan_path)
    first = _played(plan_path, EpisodeSpec("t001", 0), tmp_path)
    again = _played(plan_path, EpisodeSpec("t001", 0), tmp_path)
    assert handoff.commit(first, Resolver()).error is None
    second = handoff.commit(again, Resolver())
    assert second.error is not None and "second delivery" in second.error
    assert len(episode_logs(out)) == 1
    assert len(_attempts(handoff)) == 1


def test_a_cut_off_log_is_not_recorded(run: tuple[Path, Path], tmp_path: Path) -> None:
    out, plan_path = run
    handoff = _handoff(out, plan_path)
    played = _played(plan_path, EpisodeSpec("t001", 0), tmp_path)
    assert played.log is not None
    cut = replace(played, log=played.log[: len(played.log) // 2])
    result = handoff.commit(cut, Resolver())
    assert result.error is not None and "was not recorded" in result.error
    assert episode_logs(out) == [] and _attempts(handoff) == []
    assert handoff.todo([played.spec]) == [played.spec]


def test_a_log_signed_with_another_key_is_not_recorded(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    out, plan_path = run
    played = _played(plan_path, EpisodeSpec("t001", 0), tmp_path)
    other = Handoff(plan_path, out, LogKey(b"another-key-of-this-run!", "test"))
    result = other.commit(played, Resolver())
    assert result.error is not None and "signed with another log key" in result.error
    assert episode_logs(out) == []


def test_a_log_written_but_never_recorded_is_set_aside_and_played_again(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    out, plan_path = run
    handoff = _handoff(out, plan_path)
    played = _played(plan_path, EpisodeSpec("t002", 0), tmp_path)
    assert played.log is not None and played.log_name is not None
    stray = handoff.folder / played.log_name  # the driver died before the register lines
    stray.parent.mkdir(parents=True)
    stray.write_bytes(played.log)
    resumed = _handoff(out, plan_path)
    assert resumed.reconcile() == [EpisodeSpec("t002", 0)]
    assert episode_logs(out) == []
    assert list((out / INCOMPLETE_DIR).rglob("*.incomplete"))
    assert EpisodeSpec("t002", 0) in resumed.todo(plan(TASKS, 1))


def test_an_episode_started_but_never_ended_in_the_register_is_played_once_more(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    out, plan_path = run
    handoff = _handoff(out, plan_path)
    spec = EpisodeSpec("t001", 0)
    played = _played(plan_path, spec, tmp_path)
    assert played.episode_id is not None
    attempt = handoff.sealed.reserve(spec.task_id, spec.trial)  # the driver dies after this
    handoff.sealed.started(
        spec.task_id, spec.trial, attempt, played.episode_id, handoff.folder / "t001" / "x.jsonl"
    )
    resumed = _handoff(out, plan_path)  # reopening marks the open attempt interrupted
    assert resumed.todo([spec]) == [spec]
    result = resumed.commit(_played(plan_path, spec, tmp_path), Resolver())
    assert result.error is None and result.passed
    assert [(a[0], a[2], a[3]) for a in _attempts(resumed)] == [
        ("t001", 1, None),
        ("t001", 2, "recommended"),
    ]


def test_a_log_handed_back_as_another_episode_is_not_recorded(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    out, plan_path = run
    handoff = _handoff(out, plan_path)
    played = _played(plan_path, EpisodeSpec("t002", 0), tmp_path)
    posing = replace(played, spec=EpisodeSpec("t001", 0))
    result = handoff.commit(posing, Resolver())
    assert result.error is not None and "handed back as task 't001'" in result.error
    assert episode_logs(out) == [] and _attempts(handoff) == []


def test_a_log_named_into_another_tasks_folder_is_not_recorded(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    out, plan_path = run
    handoff = _handoff(out, plan_path)
    played = _played(plan_path, EpisodeSpec("t001", 0), tmp_path)
    assert played.log_name is not None
    moved = replace(played, log_name="t002/" + played.log_name.split("/", 1)[1])
    result = handoff.commit(moved, Resolver())
    assert result.error is not None and "folder of task 't001'" in result.error
    assert episode_logs(out) == [] and _attempts(handoff) == []
