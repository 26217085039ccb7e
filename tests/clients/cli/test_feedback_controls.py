"""Learning from feedback, measured end to end: each agent plays stream:builtin with a
control arm beside it in one sealed plan (`taurec run --with-control shuffled`), and
`evaluator score` pairs the arms.

An agent that improves on a fixed schedule without reading feedback is "improves" and
never "learns from feedback"; the learning reference agent is "learns from feedback"
overall. Runs and controls played apart, or by two agents under one label, never get
the verdict, and the table says why. The plan's arms are drawn from a seeded source here
(it is the system's in a real run) so that the outcome is the same every time."""

from __future__ import annotations

import json
import random
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


def play(out: Path, agent: str, *extra: str, label: str | None = None) -> None:
    args = ["run", "--suite", "stream:builtin", "--agent", agent, "--trials", "2"]
    args += ["--label", label] if label else []
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
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("taurec.tasks.runs.plan.secrets.SystemRandom", lambda: random.Random(7))
        for name, agent in (("schedule", SCHEDULE), ("learner", "learner")):
            play(root / name, agent, "--with-control", "shuffled")
    return groups(str(root))


def test_a_schedule_improves_but_does_not_learn_from_feedback(
    scored: dict[str, dict[str, Any]],
) -> None:
    run = scored["schedule (shuffled order)"]
    control = scored["schedule (shuffled order, feedback shuffled)"]
    assert run["improves"] and control["improves"]
    assert run["learns_from_feedback"] is False and run["verdict_note"] is None
    contrast = run["feedback_contrast"]["shuffled"]
    assert contrast["streams"] == 120 and contrast["eligible"] and contrast["blind"]
    assert contrast["family_p"] > 0.025
    assert control["feedback"] == "shuffled" and "feedback_contrast" not in control


def test_the_learner_learns_from_feedback_overall(scored: dict[str, dict[str, Any]]) -> None:
    run = scored["learner (shuffled order)"]
    contrast = run["feedback_contrast"]["shuffled"]
    assert run["learns_from_feedback"] is True
    assert contrast["family_p"] <= 0.025 and contrast["regret_contrast"] < 0
    assert contrast["by_setting"]["variable_category"]["learns_from_feedback"]
    assert not contrast["by_setting"]["variable_settings"]["learns_from_feedback"]
    assert json.loads(run["agents"][0])["kind"] == "learner"


def test_runs_played_apart_get_the_contrast_and_not_the_verdict(tmp_path: Path) -> None:
    some = ["--tasks", "stream-variable-category-regret-000,stream-variable-category-stars-001"]
    play(tmp_path / "run", "learner", *some)
    play(tmp_path / "control", "learner", "--feedback", "shuffled", *some)
    run = groups(str(tmp_path))["learner"]
    assert run["learns_from_feedback"] is False
    assert "separate runs" in run["verdict_note"]
    assert "--with-control" in run["verdict_note"]


def test_a_borrowed_label_is_not_the_same_agent(tmp_path: Path) -> None:
    some = ["--tasks", "stream-variable-category-regret-000"]
    play(tmp_path / "run", SCHEDULE, *some, label="mine")
    play(tmp_path / "control", "popularity", "--feedback", "shuffled", *some, label="mine")
    run = groups(str(tmp_path))["mine"]
    assert run["learns_from_feedback"] is False
    assert "the same label does not make the same agent" in run["verdict_note"]


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


def test_a_with_control_run_resumes_with_both_arms(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    some = ["--tasks", "stream-variable-category-regret-000", "--with-control", "none"]
    play(out, "random", *some)
    play(out, "random", *some, "--resume")
    plan = json.loads(next((out / ".plans").glob("*.json")).read_text())
    assert plan["control"] == "none"
    assert sorted(e["arm"] for e in plan["episodes"]) == ["control", "control", "run", "run"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--suite", "stream:builtin", "--agent", "ceiling", "--shuffle-order"], "--agent ceiling reads"),
        (["--suite", "stream:builtin", "--agent", "ceiling", "--with-control", "shuffled"], "--with-control: --agent ceiling reads"),
        (["--suite", "stream:builtin", "--agent", "random", "--with-control", "none", "--feedback", "none"], "leave out --feedback none"),
        (["--agent", "scripted", "--with-control", "shuffled"], "--with-control applies to stream suites"),
        (["--agent", "scripted", "--feedback", "none"], "applies to stream suites; this is a recommendation suite"),
    ],
)  # fmt: skip
def test_protocol_options_that_cannot_hold_are_one_line_with_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = runner.invoke(taurec, ["run", *args, "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 2 and message in result.stderr, result.output
