"""`taurec tasks`: exit codes, the per-task table and grid, answer-key JSON, generation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from support.third_party import TAU_REC as RELEASE
from typer.testing import CliRunner

from taurec.catalog.builders.synthetic import generate_items
from taurec.catalog.io import CatalogMeta, write_catalog_file
from taurec.clients.cli.tasks import app

WriteSuite = Callable[..., Path]
MakeDoc = Callable[..., dict[str, Any]]

# wide enough for a problem table with a long tmp path (as under pytest-xdist)
runner = CliRunner(env={"COLUMNS": "200"})


def test_validate_prints_tasks_and_grid_and_exits_0(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    result = runner.invoke(app, ["validate", str(write_suite({"t1": make_task_doc()}))])
    assert result.exit_code == 0, result.output
    assert "t1" in result.stdout and "simple/volunteer" in result.stdout
    assert "Tasks per stratum" in result.stdout and "OK 1 tasks: 0 error(s)" in result.stdout


def test_validate_exits_1_on_errors_and_names_the_problem(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    folder = write_suite({"t1": make_task_doc(policy_flags=["transparency"])})
    result = runner.invoke(app, ["validate", str(folder)])
    assert result.exit_code == 1
    assert "transparency_on_solvable" in result.stdout and "FAILED" in result.stdout


def test_bad_input_is_one_line_on_stderr_with_exit_2(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    folder = write_suite({"t1": make_task_doc(kind="no-such-kind")})
    result = runner.invoke(app, ["validate", str(folder)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert "unknown task kind 'no-such-kind'" in result.stderr
    assert "Traceback" not in result.output


def test_validate_json_is_the_report(write_suite: WriteSuite, make_task_doc: MakeDoc) -> None:
    result = runner.invoke(app, ["validate", str(write_suite({"t1": make_task_doc()})), "--json"])
    doc = orjson.loads(result.stdout)
    assert doc["suite_id"] == "suite" and doc["tasks"][0]["answers"] == ["a", "b", "d"]


def test_answers_json_is_one_object_of_sorted_ids(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    flags = ["recommend_tool", "availability"]
    folder = write_suite(
        {
            "t1": make_task_doc(policy_flags=flags),
            "t2": make_task_doc(id="t2", user={"services": ["Hulu"]}, policy_flags=flags),
        }
    )
    result = runner.invoke(app, ["answers", str(folder), "--json"])
    assert result.exit_code == 0
    assert orjson.loads(result.stdout) == {
        "t1": {"answers": ["a", "b", "d"], "compliant_answers": ["a", "b"]},
        "t2": {"answers": ["a", "b", "d"], "compliant_answers": ["b"]},
    }


def test_answers_without_json_prints_a_table(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    result = runner.invoke(app, ["answers", str(write_suite({"t1": make_task_doc()}))])
    assert result.exit_code == 0 and "Answer keys" in result.stdout and "a, b" in result.stdout


@pytest.fixture
def catalog_file(tmp_path: Path) -> Path:
    return write_catalog_file(
        tmp_path / "cat" / "syn.json", CatalogMeta(name="syn"), generate_items(80, 4)
    )


def test_generate_writes_a_suite_that_validates(tmp_path: Path, catalog_file: Path) -> None:
    out = tmp_path / "gen"
    args = [
        "generate",
        "--catalog",
        str(catalog_file),
        "--n",
        "12",
        "--seed",
        "3",
        "--out",
        str(out),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(list((out / "tasks").glob("*.json"))) == 12
    manifest = orjson.loads((out / "suite.json").read_bytes())
    assert manifest["catalog"] == "../cat/syn.json" and manifest["id"] == "gen"
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0


def test_generate_is_deterministic(tmp_path: Path, catalog_file: Path) -> None:
    for name in ("one", "two"):
        args = [
            "generate",
            "--catalog",
            str(catalog_file),
            "--n",
            "5",
            "--seed",
            "9",
            "--out",
            str(tmp_path / name),
        ]
        assert runner.invoke(app, args).exit_code == 0
    read = lambda name: [p.read_bytes() for p in sorted((tmp_path / name / "tasks").iterdir())]  # noqa: E731
    assert read("one") == read("two")


def test_generate_refuses_to_overwrite_without_force(tmp_path: Path, catalog_file: Path) -> None:
    args = ["generate", "--catalog", str(catalog_file), "--n", "2", "--out", str(tmp_path / "g")]
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "pass --force" in again.stderr
    assert runner.invoke(app, [*args, "--force"]).exit_code == 0


def test_generate_reports_a_missing_catalog_on_stderr(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["generate", "--catalog", str(tmp_path / "none.json"), "--out", str(tmp_path / "g")]
    )
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_validate_the_published_release_exits_0() -> None:
    if not (RELEASE / "tasks").is_dir():
        pytest.skip(f"τ-Rec release not found at {RELEASE} (third-party data, not shipped)")
    result = runner.invoke(app, ["validate", f"tau-rec:{RELEASE}"])
    assert result.exit_code == 0, result.output
    assert "release defect [strata_mismatch]" in result.stdout
