"""The Ray backend on a small local cluster: the same scores as a local run, a killed
worker's episode played again and counted once, and --resume."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from support import ray_agents
from support.scoring import score_groups
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.clients.runner.backends import RunJob
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import EpisodeSpec, episode_logs, plan
from taurec.clients.runner.ray_backend import RayBackend, _join_error, ray_available
from taurec.clients.runner.runner import EpisodeResult
from taurec.clients.runner.scratch_episode import EpisodeJob, play_in_scratch
from taurec.clients.runner.sealing import local_plan
from taurec.evaluator.cli.main import app as evaluator
from taurec.server.settings import ServerSettings
from taurec.tasks.runs.register import read_register
from taurec.tasks.suite import load_suite

pytestmark = [
    pytest.mark.ray,
    pytest.mark.skipif(
        not ray_available(), reason="Ray is not installed (pip install 'taurec[ray]')"
    ),
]

TASKS = ["t001", "t002", "t003"]
cli = CliRunner()


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """One small local cluster for the module; the test agents travel to it by value."""
    import ray

    ray.cloudpickle.register_pickle_by_value(ray_agents)
    ray.init(
        address="local",  # a new cluster, even where $RAY_ADDRESS names one
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=80 * 1024 * 1024,
        log_to_driver=False,
        logging_level="WARNING",
    )
    yield ray
    ray.shutdown()


def _job(out: Path, make_agent: Any, trials: int = 1) -> tuple[RunJob, list[EpisodeSpec]]:
    specs = plan(TASKS, trials)
    sealed, path = local_plan(
        out, "scripted", load_suite("builtin"), TASKS, trials, specs, resume=True
    )
    settings = ServerSettings(
        suite="builtin", log_dir=out, run_label=sealed.run_id, agent_label="scripted"
    ).model_copy(update={"plans": (path.resolve(),)})
    job = RunJob(
        make_agent, Connection("inproc", settings), out, sealed.run_id, concurrency=2,
        plan_path=path, handle_signals=False,
    )  # fmt: skip
    return job, specs


def _register(out: Path) -> list[tuple[str, int, int]]:
    [path] = out.rglob("run.register")
    state = read_register(path.read_bytes(), None)
    assert state.problem is None, state.problem
    return sorted((a.task_id, a.trial, a.attempt) for a in state.attempts)


def test_a_ray_run_scores_exactly_like_a_local_run(ray_cluster: Any, tmp_path: Path) -> None:
    options = ["run", "--tasks", ",".join(TASKS), "--trials", "2"]
    local = cli.invoke(app, [*options, "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    on_ray = cli.invoke(app, [*options, "--out", str(tmp_path / "ray"), "--backend", "ray"])
    assert on_ray.exit_code == 0, on_ray.output
    assert "on Ray" in on_ray.stderr
    groups = score_groups(tmp_path / "ray")
    assert groups == score_groups(tmp_path / "local")
    assert groups[0]["n_episodes"] == 6 and "2" in groups[0]["pass_k"]


def test_a_killed_worker_s_episode_is_played_again_and_counted_once(
    ray_cluster: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    marker = tmp_path / "killed-once"
    job, specs = _job(out, partial(ray_agents.kills_its_worker_once, str(marker), "t002"))
    report = RayBackend(scratch_root=str(tmp_path)).run(job, specs)
    assert marker.exists()  # a worker did die on t002
    assert report.failure is None and len(report.results) == 3
    assert all(r.error is None and r.score is not None for r in report.results)
    assert _register(out) == [("t001", 0, 1), ("t002", 0, 1), ("t003", 0, 1)]
    assert len(episode_logs(out)) == 3
    assert [r.spec for r in report.results if r.passed] == [
        r.spec for r in report.results if r.score is not None and r.score.passed
    ]
    [dead] = tmp_path.glob("taurec-episode-*/*/t002/*.jsonl")  # the dead attempt's scratch
    recorded = [r.episode_id for r in report.results if r.spec.task_id == "t002"]
    assert recorded[0] is not None and recorded[0][:12] not in dead.name
    assert score_groups(out)[0]["n_episodes"] == 3


def test_an_episode_whose_worker_always_dies_is_left_for_resume(
    ray_cluster: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    job, specs = _job(out, partial(ray_agents.always_kills_its_worker, "t003"))
    report = RayBackend(max_retries=0, scratch_root=str(tmp_path)).run(job, specs)
    [lost] = [r for r in report.results if r.error is not None]
    assert lost.spec == EpisodeSpec("t003", 0) and "resume plays it" in lost.error
    assert _register(out) == [("t001", 0, 1), ("t002", 0, 1)]

    resumed, _ = _job(out, partial(ray_agents.scripted))
    again = RayBackend(scratch_root=str(tmp_path)).run(resumed, specs)
    assert [r.spec for r in again.results] == [EpisodeSpec("t003", 0)]  # only what is left
    assert _register(out) == [("t001", 0, 1), ("t002", 0, 1), ("t003", 0, 1)]
    result = cli.invoke(evaluator, ["score", str(out), "--json"])
    assert result.exit_code == 0, result.output
    [run] = orjson.loads(result.stdout)["runs"]
    assert run["counted"] == run["planned"] == 3


def test_an_interrupted_ray_run_keeps_what_finished_and_resume_plays_the_rest(
    ray_cluster: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    job, specs = _job(out, partial(ray_agents.scripted))

    def stop(result: EpisodeResult) -> None:
        raise KeyboardInterrupt  # as SIGINT does, once the first episode is recorded

    report = RayBackend(scratch_root=str(tmp_path)).run(job, specs, stop)
    assert report.interrupted and len(report.results) == 1
    assert len(_register(out)) == len(episode_logs(out)) == 1

    resumed, _ = _job(out, partial(ray_agents.scripted))
    again = RayBackend(scratch_root=str(tmp_path)).run(resumed, specs)
    assert len(again.results) == 2 and not again.interrupted
    assert _register(out) == [("t001", 0, 1), ("t002", 0, 1), ("t003", 0, 1)]


def test_fail_fast_stops_a_ray_run_at_the_first_agent_error_with_its_traceback(
    ray_cluster: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    job, specs = _job(out, partial(ray_agents.raises))
    job = replace(job, concurrency=1, fail_fast=True)
    report = RayBackend(scratch_root=str(tmp_path)).run(job, specs)
    assert report.failed_fast and [r.end_reason for r in report.results] == ["agent_error"]
    assert len(_register(out)) == len(episode_logs(out)) == 1
    end = orjson.loads(report.results[0].log.read_bytes().splitlines()[-1])
    assert end["traceback"].rstrip().endswith("RuntimeError: the agent broke on a Ray worker")


def test_a_cluster_address_that_does_not_answer_is_one_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "out"
    options = ["run", "--tasks", "t001", "--out", str(out), "--backend", "ray"]
    result = cli.invoke(app, [*options, "--ray-address", f"127.0.0.1:{port}"])
    assert result.exit_code == 2
    assert "no Ray cluster answers there" in " ".join(result.stderr.split())
    assert not out.exists()  # refused before anything was written


def test_the_cli_resumes_a_ray_run(ray_cluster: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    options = ["run", "--tasks", ",".join(TASKS), "--trials", "1", "--out", str(out)]
    first = cli.invoke(app, [*options, "--backend", "ray"])
    assert first.exit_code == 0, first.output
    again = cli.invoke(app, [*options, "--backend", "ray", "--resume"])
    assert again.exit_code == 0, again.output
    assert "nothing to play" in again.stderr
    assert len(episode_logs(out)) == 3


def test_workers_can_play_against_a_taurec_serve_subprocess(
    ray_cluster: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    options = ["run", "--tasks", "t001", "--trials", "1", "--out", str(out)]
    result = cli.invoke(app, [*options, "--backend", "ray", "--transport", "stdio"])
    assert result.exit_code == 0, result.output
    assert _register(out) == [("t001", 0, 1)]
    assert score_groups(out)[0]["n_episodes"] == 1


class LosesItsCluster:
    """Stands in for the `ray` module: its cluster plays the first episode submitted (in
    this process), then is lost, as when `ray stop` ends the driver's own node: every
    later result is Ray's LocalRayletDiedError."""

    def __init__(self) -> None:
        import ray

        self.exceptions = ray.exceptions
        self.submitted: list[EpisodeJob] = []
        self.cancelled: list[int] = []

    def is_initialized(self) -> bool:
        return True

    def remote(self, **options: Any) -> Any:
        return lambda function: SimpleNamespace(remote=self._submit)

    def _submit(self, episode: EpisodeJob) -> int:
        self.submitted.append(episode)
        return len(self.submitted) - 1

    def wait(self, refs: list[int], num_returns: int) -> tuple[list[int], list[int]]:
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref: int) -> Any:
        if ref == 0:
            return play_in_scratch(self.submitted[0])
        raise self.exceptions.LocalRayletDiedError()

    def cancel(self, ref: int, force: bool) -> None:
        self.cancelled.append(ref)


def test_a_lost_cluster_stops_the_run_and_keeps_what_was_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    backend = RayBackend(scratch_root=str(tmp_path))
    lost = LosesItsCluster()
    monkeypatch.setitem(sys.modules, "ray", lost)
    job, specs = _job(out, partial(ray_agents.scripted))  # 3 episodes, 2 in flight
    report = backend.run(job, specs)
    assert report.failure is not None
    assert report.failure.startswith("the Ray cluster was lost (LocalRayletDiedError")
    assert "--resume" in report.failure
    assert [r.spec for r in report.results] == [EpisodeSpec("t001", 0)]
    assert _register(out) == [("t001", 0, 1)]
    assert len(lost.submitted) == 3 and lost.cancelled == [2]  # nothing submitted after


def test_a_token_the_cluster_refuses_is_named_as_such() -> None:
    try:  # the causes of what `ray.init` raises when the cluster wants a token
        try:
            raise RuntimeError(
                "Failed to connect to GCS. Last connection error: ... "
                "ray.exceptions.AuthenticationError: RPC error: InvalidAuthToken: "
                "Authentication token is missing or incorrect."
            )
        except RuntimeError as gcs:
            raise ConnectionError("Failed to connect to Ray cluster at 10.0.0.1:6379") from gcs
    except ConnectionError as exc:
        message = str(_join_error("10.0.0.1:6379", exc))
    assert message.startswith("--ray-address 10.0.0.1:6379: the cluster refused")
    assert "RAY_AUTH_MODE=token" in message and "\n" not in message


def test_any_other_failure_to_join_names_its_first_line() -> None:
    message = str(_join_error("10.0.0.1:6379", ConnectionError("no cluster\nmore detail")))
    assert message == (
        "--ray-address 10.0.0.1:6379: cannot join the Ray cluster (no cluster); expected "
        "the address `ray start --head` printed, e.g. 10.0.0.1:6379"
    )
