"""A stray .jsonl file in a folder of logs (notes, another program's output) is listed once
as skipped: no agent group, no open-server warning, no unclean run; named on its own it is
one error line. A planned log replaced by such a file still counts as failed."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from taurec.clients.cli.main import app as taurec
from taurec.evaluator.cli.main import app as evaluator
from taurec.evaluator.evaluate import evaluate
from taurec.evaluator.logs import Resolver

NOTES = '{"note": "look at t003 again"}\n'
runner = CliRunner()


def test_a_stray_jsonl_is_skipped_and_makes_no_agent(logs) -> None:
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    stray = logs.out / "notes.jsonl"
    stray.write_text(NOTES)
    check = evaluate([logs.out], Resolver(suite=logs.spec))
    assert check.skipped == [str(stray)]
    assert {s.label for s in check.scores} == {"agentA"} and len(check.scores) == 3
    assert check.clean and not check.excluded


def test_score_lists_it_once_with_no_phantom_group_or_warning(logs) -> None:
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    (logs.out / "notes.jsonl").write_text(NOTES)
    result = runner.invoke(evaluator, ["score", str(logs.out), "--suite", logs.spec, "--json"])
    assert result.exit_code == 0, result.output
    assert [g["label"] for g in json.loads(result.stdout)["groups"]] == ["agentA"]
    skipped = [line for line in result.stderr.splitlines() if "notes.jsonl" in line]
    assert skipped == [f"skipped: {logs.out / 'notes.jsonl'}: not a taurec log"]
    assert "(unreadable)" not in result.stderr


def test_explain_refuses_a_file_that_is_not_a_log_in_one_line(tmp_path: Path) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text(NOTES)
    result = runner.invoke(evaluator, ["explain", str(notes)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "not a taurec log" in result.output
    assert "type None" not in result.output


def test_explain_of_a_folder_skips_the_stray_file_and_explains_the_logs(logs) -> None:
    logs.episode("ta", 0, item="c1")
    (logs.out / "notes.jsonl").write_text(NOTES)
    args = ["explain", str(logs.out), "--suite", logs.spec]
    result = runner.invoke(evaluator, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "notes.jsonl: not a taurec log" in result.output and "type None" not in result.output
    assert "conversation" in result.output


def test_a_planned_log_replaced_by_a_stray_file_still_counts_as_failed(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    played = runner.invoke(taurec, ["run", "--tasks", "t001", "--trials", "2", "--out", str(out)])
    assert played.exit_code == 0, played.output
    first = sorted(out.rglob("trial0-*.jsonl"))[0]
    first.write_text(NOTES)
    result = runner.invoke(evaluator, ["score", str(out), "--json"])
    assert result.exit_code == 1  # the run's files are damaged
    (group,) = json.loads(result.stdout)["groups"]
    assert group["n_episodes"] == 2 and group["pass_k"]["1"] == 0.5
