"""The backend registry behind `taurec run --backend`."""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from support.ray_agents import scripted
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.clients.cli.run import BackendName
from taurec.clients.runner.backends import (
    BACKENDS,
    BackendError,
    LocalBackend,
    RunJob,
    make_backend,
)
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.server.settings import ServerSettings

cli = CliRunner()


def test_the_cli_offers_exactly_the_registrys_backends() -> None:
    assert [b.value for b in BackendName] == list(BACKENDS)


def test_an_unknown_backend_is_a_clear_error() -> None:
    with pytest.raises(BackendError, match="unknown backend 'spark'; expected one of local, ray"):
        make_backend("spark")


def test_a_ray_address_for_the_local_backend_is_refused() -> None:
    with pytest.raises(BackendError, match="--ray-address applies to --backend ray only"):
        make_backend("local", "127.0.0.1:6379")


def test_the_local_backend_plays_every_episode_with_the_runner(tmp_path: Path) -> None:
    settings = ServerSettings(log_dir=tmp_path, run_label="r", agent_label="scripted")
    job = RunJob(
        partial(scripted), Connection("inproc", settings), tmp_path, "r", handle_signals=False
    )
    seen = []
    report = LocalBackend().run(job, plan(["t001", "t002"], 1), seen.append)
    assert report.failure is None
    assert sorted(r.spec.task_id for r in report.results) == ["t001", "t002"]
    assert seen == report.results and all(r.score is not None for r in seen)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--ray-address", "127.0.0.1:6379"], "--ray-address applies to --backend ray only"),
        (
            ["--backend", "ray", "--transport", "http", "--url", "http://127.0.0.1:9/mcp"],
            "use --transport inproc or stdio",
        ),
    ],
)
def test_bad_backend_options_are_one_clear_error(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    result = cli.invoke(app, ["run", "--out", str(tmp_path), "--tasks", "t001", *extra])
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())


def test_a_run_seed_for_a_sealed_run_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    result = cli.invoke(app, ["run", "--out", str(out), "--tasks", "t001", "--seed", "5"])
    assert result.exit_code == 2
    assert "--seed: a run this command serves is sealed" in " ".join(result.stderr.split())
    assert "running" not in result.stderr
    assert not out.exists() or not any(out.rglob("*"))  # no plan, no register, no log


def test_the_cli_imports_ray_only_when_a_ray_run_starts() -> None:
    code = "import sys, taurec.clients.cli.main; print('ray' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
