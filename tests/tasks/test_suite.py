"""Suite loading: the folder format, spec resolution, and every bad input's message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from taurec.catalog.errors import DataError
from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.tasks import suite as suite_module
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import (
    SuiteFormat,
    SuiteManifest,
    load_suite,
    packaged_suites_dir,
    parse_task,
    write_suite_dir,
)

WriteSuite = Callable[..., Path]
MakeDoc = Callable[..., dict[str, Any]]


def _error(spec: Path | str) -> DataError:
    with pytest.raises(DataError) as info:
        load_suite(str(spec))
    return info.value


def test_loads_a_suite_folder_with_tasks_sorted_by_id(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    folder = write_suite({"b2": make_task_doc(id="b2"), "a1": make_task_doc(id="a1")})
    suite = load_suite(str(folder))
    assert [t.id for t in suite.tasks] == ["a1", "b2"]
    assert (suite.id, suite.spec, suite.description) == ("suite", str(folder), "test")
    assert len(suite.catalog) == 5 and suite.warnings == []
    assert suite.format is SuiteFormat.TAUREC and suite.strict


def test_accepts_the_path_of_suite_json(write_suite: WriteSuite, make_task_doc: MakeDoc) -> None:
    folder = write_suite({"t1": make_task_doc()})
    assert load_suite(str(folder / "suite.json")).id == "suite"


def test_get_finds_a_task_by_id(write_suite: WriteSuite, make_task_doc: MakeDoc) -> None:
    suite = load_suite(str(write_suite({"t1": make_task_doc()})))
    assert suite.get("t1") is suite.tasks[0] and suite.get("nope") is None


def test_sha256_covers_tasks(write_suite: WriteSuite, make_task_doc: MakeDoc) -> None:
    one = load_suite(str(write_suite({"t1": make_task_doc()}, name="one")))
    two = load_suite(str(write_suite({"t1": make_task_doc(persona="Other.")}, name="two")))
    assert one.sha256() != two.sha256()
    assert (
        one.sha256() == load_suite(str(write_suite({"t1": make_task_doc()}, name="three"))).sha256()
    )


def test_builtin_names_the_packaged_suite_folder(
    monkeypatch: pytest.MonkeyPatch, write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    folder = write_suite({"t1": make_task_doc()}, name="builtin")
    monkeypatch.setattr(suite_module, "packaged_suites_dir", lambda: folder.parent)
    suite = load_suite("builtin")
    assert suite.spec == "builtin" and [t.id for t in suite.tasks] == ["t1"]


def test_the_package_ships_a_builtin_suite_folder() -> None:
    assert (packaged_suites_dir() / "builtin" / "tasks").is_dir()


def test_non_json_files_in_tasks_are_ignored_with_a_warning(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    folder = write_suite({"t1": make_task_doc()})
    (folder / "tasks" / "NOTES.md").write_text("draft ideas")
    suite = load_suite(str(folder))
    assert len(suite.tasks) == 1
    assert suite.warnings == [
        f"{folder / 'tasks' / 'NOTES.md'}: ignored; task files are tasks/<task id>.json"
    ]


def test_write_suite_dir_round_trips(tmp_path: Path, make_task_doc: MakeDoc) -> None:
    task = RecommendationTask.model_validate(make_task_doc(user={"age": 30, "services": ["Hulu"]}))
    manifest = SuiteManifest(format_version=1, id="rt", catalog="builtin")
    write_suite_dir(tmp_path / "rt", manifest, [task])
    doc = (tmp_path / "rt" / "tasks" / "t1.json").read_text()
    assert "maturity_limit" not in doc  # unset optional fields are left out
    assert parse_task(__import__("orjson").loads(doc), source="x", expected_id="t1") == task


# --- bad input: each message names the file, the task, the field and the expectation ----


def test_malformed_json_names_file_task_and_position(write_suite: WriteSuite) -> None:
    err = _error(write_suite({"t1": b'{"id": "t1",, }'}))
    assert err.source and err.source.endswith("t1.json") and err.record == "task 't1'"
    assert "is not valid JSON" in str(err) and "line 1" in str(err)


def test_unknown_field_is_named(write_suite: WriteSuite, make_task_doc: MakeDoc) -> None:
    err = _error(write_suite({"t1": make_task_doc(colour="blue")}))
    assert err.source and err.source.endswith("t1.json")
    assert (err.record, err.field, err.detail) == ("task 't1'", "colour", "is not a known field")


def test_unknown_operator_lists_the_operators(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    doc = make_task_doc(constraints=[{"field": "runtime", "op": "~", "value": 90}])
    err = _error(write_suite({"t1": doc}))
    assert (err.record, err.field) == ("task 't1'", "constraints[0].op")
    assert err.detail.startswith("expected '<=', '>='") and err.detail.endswith("got '~'")


def test_wrong_type_says_what_was_expected(write_suite: WriteSuite, make_task_doc: MakeDoc) -> None:
    err = _error(write_suite({"t1": make_task_doc(user={"age": "old"})}))
    assert (err.record, err.field) == ("task 't1'", "user.age")
    assert "expected a valid integer" in err.detail and "got 'old'" in err.detail


def test_bad_constraint_value_names_the_constraint(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    doc = make_task_doc(constraints=[{"field": "runtime", "op": "<=", "value": "long"}])
    err = _error(write_suite({"t1": doc}))
    assert err.field == "constraints[0]"
    assert err.detail == "expected a number for 'runtime', got 'long'"


def test_unknown_kind_lists_the_supported_kinds(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    from taurec.tasks.kinds import TASK_KINDS

    err = _error(write_suite({"t1": make_task_doc(kind="no-such-kind")}))
    assert (err.record, err.field) == ("task 't1'", "kind")
    assert err.detail == (
        "unknown task kind 'no-such-kind'; expected one of the supported kinds: "
        + ", ".join(TASK_KINDS.names())
    )
    assert "ranking" in TASK_KINDS.names() and "recommendation" in TASK_KINDS.names()


def test_id_must_match_the_file_stem(write_suite: WriteSuite, make_task_doc: MakeDoc) -> None:
    err = _error(write_suite({"t1": make_task_doc(id="t2")}))
    assert (err.record, err.field) == ("task 't2'", "id")
    assert err.detail == "expected the file name stem 't1' as the id, got 't2'"


def test_task_ids_differing_only_by_case_are_duplicates(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    err = _error(write_suite({"T1": make_task_doc(id="T1"), "t1": make_task_doc(id="t1")}))
    assert err.field == "id" and err.record == "task 't1'"
    assert "duplicate task id" in err.detail and "'T1'" in err.detail


def test_identical_task_ids_are_duplicates(make_task_doc: MakeDoc) -> None:
    task = RecommendationTask.model_validate(make_task_doc())
    with pytest.raises(DataError, match="duplicate task id: another task has the same id"):
        suite_module.check_unique_ids([task, task], source="tasks")


def test_declared_strata_must_match_derived(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    err = _error(write_suite({"t1": make_task_doc(complexity="complex")}))
    assert (err.record, err.field) == ("task 't1'", "complexity")
    assert "declared complexity 'complex' but 1 constraints make it 'simple'" in err.detail


def test_declared_reveal_difficulty_must_match_derived(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    err = _error(write_suite({"t1": make_task_doc(reveal_difficulty="hidden")}))
    assert err.field == "reveal_difficulty" and "make it 'volunteer'" in err.detail


def test_task_file_must_hold_an_object(write_suite: WriteSuite) -> None:
    err = _error(write_suite({"t1": [1, 2]}))
    assert err.record == "task 't1'" and err.detail == "expected a JSON object, got list"


def test_empty_suite_is_an_error(write_suite: WriteSuite) -> None:
    err = _error(write_suite({}))
    assert err.source and err.source.endswith("tasks")
    assert "holds no task files" in err.detail


def test_nothing_is_half_loaded_and_other_bad_files_are_counted(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    folder = write_suite(
        {"a": make_task_doc(id="a"), "b": make_task_doc(id="b", colour=1), "c": b"nope"}
    )
    err = _error(folder)
    assert err.record == "task 'b'"
    assert err.detail.endswith("(and 1 more file with problems: c.json)")


def test_missing_suite_json_is_explained(tmp_path: Path) -> None:
    (tmp_path / "s" / "tasks").mkdir(parents=True)
    err = _error(tmp_path / "s")
    assert err.source and err.source.endswith("suite.json") and "format_version" in err.detail


def test_a_tau_rec_release_folder_gets_a_hint(tmp_path: Path) -> None:
    (tmp_path / "r" / "tasks").mkdir(parents=True)
    (tmp_path / "r" / "catalog.json").write_text("[]")
    assert "load it as tau-rec:" in _error(tmp_path / "r").detail


@pytest.mark.parametrize(
    ("manifest", "field", "expected"),
    [
        ({"format_version": 2}, "format_version", "expected 1"),
        ({"id": "has space"}, "id", "expected String should match pattern"),
        ({"owner": "me"}, "owner", "is not a known field"),
    ],
)
def test_bad_suite_json_names_the_field(
    write_suite: WriteSuite,
    make_task_doc: MakeDoc,
    manifest: dict[str, Any],
    field: str,
    expected: str,
) -> None:
    err = _error(write_suite({"t1": make_task_doc()}, manifest=manifest))
    assert err.source and err.source.endswith("suite.json")
    assert err.field == field and expected in err.detail


def test_missing_catalog_file_is_named_in_suite_json(
    write_suite: WriteSuite, make_task_doc: MakeDoc
) -> None:
    err = _error(write_suite({"t1": make_task_doc()}, manifest={"catalog": "../nowhere.json"}))
    assert err.field == "catalog" and "expected 'builtin' or a catalog file path" in err.detail


def test_missing_tasks_folder_is_explained(write_suite: WriteSuite) -> None:
    folder = write_suite({})
    (folder / "tasks").rmdir()
    assert "no tasks/ folder" in _error(folder).detail


def test_unknown_spec_lists_what_is_accepted(tmp_path: Path) -> None:
    err = _error(tmp_path / "absent")
    expected = (
        "expected a built-in suite (builtin, ranking:builtin, stream:builtin), a suite folder"
    )
    assert expected in err.detail and "tau-rec:PATH" in err.detail


def test_a_bad_catalog_item_fails_the_suite(
    write_suite: WriteSuite, make_task_doc: MakeDoc, make_item: Callable[..., Item]
) -> None:
    item = make_item("a")
    folder = write_suite({"t1": make_task_doc()}, items=(item, item))
    assert "duplicate id" in str(_error(folder))


def test_a_suite_may_name_a_catalog_folder(write_suite: WriteSuite, make_task_doc: MakeDoc) -> None:
    from taurec.catalog.folder import write_catalog_folder

    folder = write_suite({"t1": make_task_doc()}, manifest={"catalog": "small.taurec-catalog"})
    json_catalog = Catalog.load(folder / "catalog.json")
    write_catalog_folder(folder / "small.taurec-catalog", json_catalog.meta, json_catalog.items)
    suite = load_suite(str(folder))
    assert suite.catalog.content_sha256() == json_catalog.sha256()
    assert suite.catalog.ids == json_catalog.ids
