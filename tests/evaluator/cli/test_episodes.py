"""`evaluator episodes`: one row per episode as a table, JSON or CSV; bad paths are one line."""

from __future__ import annotations

import csv
import io

import orjson
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, ["episodes", *args])


def test_json_lists_one_row_per_episode(logs):
    logs.run({"ta": 2, "tb": 1}, trials=2)
    result = _run(str(logs.out), "--suite", logs.spec, "--json")
    assert result.exit_code == 0, result.output
    rows = orjson.loads(result.stdout)
    assert len(rows) == 4
    assert sorted((r["task"], r["trial"], r["passed"]) for r in rows) == [
        ("ta", 0, True),
        ("ta", 1, True),
        ("tb", 0, True),
        ("tb", 1, False),
    ]


def test_failed_keeps_only_the_failed_episodes(logs):
    logs.run({"ta": 2, "tb": 1}, trials=2)
    rows = orjson.loads(_run(str(logs.out), "--suite", logs.spec, "--json", "--failed").stdout)
    assert [(r["task"], r["trial"]) for r in rows] == [("tb", 1)]
    assert rows[0]["failed_constraints"] == ["genres contains 'Drama'"]


def test_csv_has_a_header_and_one_line_per_episode(logs):
    logs.run({"ta": 1, "tb": 0}, trials=1)
    result = _run(str(logs.out), "--suite", logs.spec, "--csv")
    assert result.exit_code == 0, result.output
    table = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(table) == 2
    by_task = {r["task"]: r for r in table}
    assert by_task["ta"]["passed"] == "true" and by_task["tb"]["passed"] == "false"
    assert by_task["tb"]["failed_constraints"] == "genres contains 'Drama'"


def test_the_table_names_why_an_episode_failed(logs):
    logs.run({"tb": 0}, trials=1)
    result = runner.invoke(
        app, ["episodes", str(logs.out), "--suite", logs.spec], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 0, result.output
    assert "1 episode" in result.stdout and "1 episodes" not in result.stdout
    assert "constraint genres contains 'Drama'" in result.stdout


def test_a_file_that_is_not_a_log_is_one_line_and_exit_2(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# hi\n")
    result = _run(str(readme))
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0
    assert "not an episode log" in result.output and "README.md" in result.output


def test_a_missing_path_is_one_line_and_exit_2(tmp_path):
    result = _run(str(tmp_path / "nowhere"))
    assert result.exit_code == 2 and "no such file or folder" in result.output


def test_a_folder_without_logs_is_one_line_and_exit_2(tmp_path):
    result = _run(str(tmp_path))
    assert result.exit_code == 2 and "no episode logs" in result.output


def test_json_and_csv_together_are_refused(logs):
    logs.run({"ta": 1}, trials=1)
    result = _run(str(logs.out), "--json", "--csv")
    assert result.exit_code == 2 and "exclude each other" in result.output


def test_csv_neutralises_formula_labels_and_control_bytes(logs):
    hostile = ['=HYPERLINK("http://evil","x")', "+1", "-2", "@SUM(A1)", "\x1b[31mred\x07"]
    for label in hostile:
        logs.run({"ta": 1}, trials=1, label=label)
    result = _run(str(logs.out), "--suite", logs.spec, "--csv")
    assert result.exit_code == 0, result.output
    assert not any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F for c in result.stdout)
    table = list(csv.DictReader(io.StringIO(result.stdout)))
    labels = sorted(r["label"] for r in table)
    assert labels == sorted(["'" + h for h in hostile[:4]] + ["\\x1b[31mred\\x07"])
    assert {r["reward"] for r in table} == {"1.0"}  # numbers are written as they are
