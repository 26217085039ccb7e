"""`taurec tasks validate` names the leaks between the tasks of a recommendation or stream
suite (exit 1), passes a suite without them (exit 0), and the generators refuse to write
a suite that leaks (one line, exit 2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from support.streams import make_stream
from typer.testing import CliRunner

import taurec.tasks.recommendation.generator as generator
from taurec.catalog.builders.synthetic import generate_items
from taurec.catalog.io import CatalogMeta, write_catalog_file
from taurec.clients.cli.main import app
from taurec.tasks.stream.task import StreamSetting, StreamTask
from taurec.tasks.suite import SuiteManifest, write_suite_dir

runner = CliRunner(env={"COLUMNS": "200"})
WriteSuite = Callable[..., Path]
MakeDoc = Callable[..., dict[str, Any]]

DRAMA = {"field": "genres", "op": "contains", "value": "Drama"}
SHORT = {"field": "runtime", "op": "<=", "value": 110}


def validate(folder: Path, *options: str) -> Any:
    return runner.invoke(app, ["tasks", "validate", str(folder), *options])


def two_tasks_of(write_suite: WriteSuite, make_task_doc: MakeDoc, *, same_user: bool) -> Path:
    says = make_task_doc(id="says", persona="You are Ann.", constraints=[SHORT])
    hides = make_task_doc(
        id="hides", persona="You are Bo.", constraints=[DRAMA, {**SHORT, "reveal": "hidden"}]
    )
    hides["user"] = {**hides["user"], "user_id": "u1" if same_user else "u2"}
    says["user"] = {**says["user"], "user_id": "u1"}
    return write_suite({"says": says, "hides": hides})


def test_validate_names_a_leak_between_recommendation_tasks_and_exits_1(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    result = validate(two_tasks_of(write_suite, make_task_doc, same_user=True))
    assert result.exit_code == 1
    assert "shared_user_reveal" in result.stdout and "FAILED" in result.stdout


def test_validate_json_lists_the_leak_among_the_tasks_errors(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    result = validate(two_tasks_of(write_suite, make_task_doc, same_user=True), "--json")
    assert result.exit_code == 1
    tasks = {t["task_id"]: t for t in orjson.loads(result.stdout)["tasks"]}
    assert [p["code"] for p in tasks["hides"]["errors"]] == ["shared_user_reveal"]
    assert tasks["says"]["errors"] == []


def test_validate_passes_the_same_tasks_for_two_users(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    result = validate(two_tasks_of(write_suite, make_task_doc, same_user=False))
    assert result.exit_code == 0, result.output
    assert "OK 2 tasks: 0 error(s), 0 warning(s)" in result.stdout


class _Blind:
    def __init__(self, catalog: object) -> None:
        pass

    def leaks(self, task: object) -> list[object]:
        return []

    def add(self, task: object) -> None:
        pass


def test_generate_refuses_a_recommendation_suite_that_leaks_with_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = tmp_path / "syn150.json"
    write_catalog_file(catalog, CatalogMeta(name="syn150"), generate_items(150, seed=11))
    monkeypatch.setattr(generator, "LeakIndex", _Blind)  # as if it drew without looking
    out = tmp_path / "suite"
    args = ["--catalog", str(catalog), "--n", "12", "--seed", "4", "--out", str(out)]
    result = runner.invoke(app, ["tasks", "generate", *args])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: task 'gen_005' (shared_user_reveal)")
    assert result.stderr.endswith("refusing a suite that leaks\n")
    assert result.stderr.count("\n") == 1 and not (out / "tasks").exists()


def stream_suite(folder: Path, tasks: list[StreamTask]) -> Path:
    manifest = SuiteManifest(format_version=1, id="streams", catalog="builtin", kind="stream")
    write_suite_dir(folder, manifest, tasks)
    return folder


def test_validate_names_streams_that_give_each_other_away_and_exits_1(tmp_path: Path) -> None:
    first = make_stream(episodes=3)
    again = first.model_copy(update={"id": "again"})
    folder = stream_suite(tmp_path / "leaky", [first, again])
    text = validate(folder)
    assert text.exit_code == 1
    assert "2 with episodes another stream gives away (6 episodes)" in text.stdout
    assert "shared_personas: 1 of 1 customers" in text.stdout
    doc = orjson.loads(validate(folder, "--json").stdout)
    assert doc["suite_id"] == "streams" and doc["ok"] is False
    assert set(doc["problems"]) == {first.id, "again"} and len(doc["problems"]["again"]) == 3
    assert doc["leaks"]["hard_episodes"] == 6 and doc["leaks"]["shared_personas"] == 1
    assert len(doc["warnings"]) == 1 and "BIEL's design" in doc["warnings"][0]


def test_validate_passes_a_stream_suite_without_leaks(tmp_path: Path) -> None:
    folder = stream_suite(tmp_path / "fair", [make_stream(StreamSetting.VARIABLE_PERSONA)])
    result = validate(folder, "--json")
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert (doc["ok"], doc["problems"], doc["warnings"]) == (True, {}, [])


def test_validate_passes_the_builtin_stream_suite_with_only_the_shared_customers_warning() -> None:
    result = runner.invoke(app, ["tasks", "validate", "stream:builtin", "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert (doc["ok"], doc["problems"], doc["leaks"]["hard_episodes"]) == (True, {}, 0)
    (warning,) = doc["warnings"]
    assert warning.startswith("shared_personas: 120 of 120 customers")


def generate_streams(out: Path, *options: str) -> Any:
    args = ["--out", str(out), "--n", "3", "--episodes", "5", "--personas", "2"]
    settings = ["--settings", "variable_category", "--feedback", "regret"]
    return runner.invoke(app, ["tasks", "generate-streams", *args, *settings, *options])


def test_streams_drawn_as_biel_are_written_with_a_warning_and_fail_validation(
    tmp_path: Path,
) -> None:
    result = generate_streams(tmp_path / "biel", "--cross-stream", "biel")
    assert result.exit_code == 0, result.output
    assert "have a best item that another stream's feedback" in result.stderr
    assert validate(tmp_path / "biel").exit_code == 1
    isolated = generate_streams(tmp_path / "isolated")
    assert isolated.exit_code == 0, isolated.output
    assert "another stream's feedback" not in isolated.stderr
    assert validate(tmp_path / "isolated").exit_code == 0


def test_an_unknown_cross_stream_mode_is_a_usage_error(tmp_path: Path) -> None:
    result = generate_streams(tmp_path / "x", "--cross-stream", "sometimes")
    assert result.exit_code == 2
    text = " ".join(result.output.replace("│", " ").split())
    assert "'sometimes'; expected one of isolated, distinct, biel" in text
