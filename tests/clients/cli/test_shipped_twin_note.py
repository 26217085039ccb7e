"""A task generator run with the seed and data a shipped suite was made with says, in one
line on stderr, that it wrote that suite's (public) tasks again."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from taurec.clients.cli.main import app

runner = CliRunner()


def _generate_ranking(out: Path, *extra: str):
    return runner.invoke(
        app, ["tasks", "generate", "--kind", "ranking", "--n", "5", "--out", str(out), *extra]
    )


def test_the_default_seed_repeats_the_shipped_ranking_suite_and_says_so(tmp_path: Path) -> None:
    result = _generate_ranking(tmp_path / "mine")
    assert result.exit_code == 0, result.output
    (note,) = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    assert note == (
        "note: 5 of the 5 tasks are tasks of the shipped suite ranking:builtin (same data and "
        "--seed 0), public ones; pass another --seed for tasks of your own"
    )


def test_another_seed_writes_tasks_of_ones_own_without_a_note(tmp_path: Path) -> None:
    result = _generate_ranking(tmp_path / "mine", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "note:" not in result.stderr and "shipped suite" not in result.output
