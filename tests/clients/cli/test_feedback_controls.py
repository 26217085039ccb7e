"""Learning from feedback, measured end to end: each agent plays stream:builtin twice,
with the tasks' feedback and as a control run with the feedback withheld
(`taurec run --feedback none`, into its own folder), and `evaluator score` pairs the two.

An agent that improves on a fixed schedule without reading feedback is "improves" and
never "learns from feedback"; the learning reference agent is "learns from feedback"
overall."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from taurec.clients.cli.main import app as taurec
from taurec.evaluator.cli.main import app as evaluator

pytestmark = pytest.mark.slow
runner = CliRunner()
SCHEDULE = str(Path(__file__).parents[2] / "support" / "stream_schedule.py") + ":ScheduleAgent"


def play(out: Path, agent: str, *extra: str) -> None:
    args = ["run", "--suite", "stream:builtin", "--agent", agent, "--trials", "1"]
    result = runner.invoke(taurec, [*args, "--log-dir", str(out), *extra])
    assert result.exit_code == 0, result.output


@cache
def groups(root: str) -> dict[str, dict[str, Any]]:
    result = runner.invoke(evaluator, ["score", root, "--json"])
    assert result.exit_code == 0, result.output
    return {g["label"]: g for g in json.loads(result.stdout)["groups"]}


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("logs")
    for name, agent in (("schedule", SCHEDULE), ("learner", "learner")):
        play(root / name, agent)
        play(root / f"{name}-control", agent, "--feedback", "none")
    return groups(str(root))


def test_a_schedule_improves_but_does_not_learn_from_feedback(
    scored: dict[str, dict[str, Any]],
) -> None:
    run, control = scored["schedule"], scored["schedule (feedback none)"]
    assert run["improves"] and control["improves"]
    assert run["learns_from_feedback"] is False
    contrast = run["feedback_contrast"]["none"]
    assert contrast["streams"] == 120 and contrast["slope_contrast"] == 0.0
    assert not any(c["learns_from_feedback"] for c in contrast["by_setting"].values())
    assert control["feedback"] == "none" and "feedback_contrast" not in control


def test_the_learner_learns_from_feedback_overall(scored: dict[str, dict[str, Any]]) -> None:
    run = scored["learner"]
    contrast = run["feedback_contrast"]["none"]
    assert run["learns_from_feedback"] is True
    assert contrast["slope_contrast_ci"][1] < 0 and contrast["regret_contrast"] < 0
    assert contrast["by_setting"]["variable_category"]["learns_from_feedback"]


def test_a_control_run_is_refused_in_the_real_runs_folder_even_on_resume(
    tmp_path: Path,
) -> None:
    out = tmp_path / "logs"
    some = ["--tasks", "stream-variable-category-regret-000"]
    play(out, "random", *some)
    for extra in ((), ("--resume",)):
        args = ["run", "--suite", "stream:builtin", "--agent", "random", "--trials", "1"]
        result = runner.invoke(
            taurec, [*args, "--log-dir", str(out), "--feedback", "none", *some, *extra]
        )
        assert result.exit_code == 2, result.output
        assert "played under another stream protocol" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--suite", "stream:builtin", "--agent", "ceiling", "--shuffle-order"], "--agent ceiling reads"),
        (["--agent", "scripted", "--feedback", "none"], "applies to stream suites; this is a recommendation suite"),
    ],
)  # fmt: skip
def test_protocol_options_that_cannot_hold_are_one_line_with_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = runner.invoke(taurec, ["run", *args, "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 2 and message in result.stderr, result.output
