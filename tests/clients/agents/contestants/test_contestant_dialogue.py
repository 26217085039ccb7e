"""Outside contestants (a text-only CRS, an A2A agent) are scored like every agent:
their episodes log dialogue acts, and `evaluator score` gives SR/SRRR/RDL and the
simulator-fault audit for them (the rule-based user audits at 0 faults)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.loopback import serve_app, serve_factory
from support.scoring import score_groups
from typer.testing import CliRunner

from taurec.clients.agents.contestants.a2a_demo import a2a_app
from taurec.clients.agents.contestants.crs_demo import DemoCrs, crs_app
from taurec.clients.cli.main import app
from taurec.tasks.suite import load_suite

SUITE = load_suite("builtin")
TASKS = "t001,t002"


@pytest.fixture(scope="module")
def crs_url() -> Iterator[str]:
    with serve_app(crs_app(DemoCrs(SUITE.catalog))) as url:
        yield url


@pytest.fixture(scope="module")
def a2a_url() -> Iterator[str]:
    with serve_factory(a2a_app) as url:
        yield url


def _group(out: Path, *args: str) -> dict:
    result = CliRunner().invoke(
        app, ["run", "--tasks", TASKS, "--trials", "1", "--out", str(out), *args]
    )
    assert result.exit_code == 0, result.output
    (group,) = score_groups(out)
    return group


def test_a_crs_contestant_gets_dialogue_metrics_and_a_clean_audit(
    crs_url: str, tmp_path: Path
) -> None:
    group = _group(tmp_path, "--agent", "crs", "--crs-url", crs_url)
    assert group["dialogue"]["episodes"] == 2 and group["dialogue"]["utterances"] > 2
    assert group["simulator_faults"]["by_simulator"]["rule"]["faulty"] == 0


def test_an_a2a_contestant_gets_dialogue_metrics_and_a_clean_audit(
    a2a_url: str, tmp_path: Path
) -> None:
    group = _group(tmp_path, "--agent", "a2a", "--a2a-url", a2a_url)
    assert group["dialogue"]["episodes"] == 2 and group["dialogue"]["sr"] is not None
    assert group["simulator_faults"]["by_simulator"]["rule"]["faulty"] == 0
