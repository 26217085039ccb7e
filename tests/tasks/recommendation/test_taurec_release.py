"""Reading a τ-Rec release as a suite: task conversion, defects as warnings, the real release.

Conversion is tested on a made-up release written to tmp_path. The real release is
third-party data, read from ../shared/third_party and never copied here; those tests skip,
saying why, when it is absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from support.third_party import TAU_REC as RELEASE
from support.third_party import release_item as _item

from taurec.catalog.errors import DataError
from taurec.tasks.recommendation.constraint import Reveal
from taurec.tasks.recommendation.taurec_release import convert_task, find_release_root
from taurec.tasks.recommendation.validate import validate_suite
from taurec.tasks.suite import SuiteFormat, load_suite


def release_task(task_id: str = "q1", **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": task_id,
        "constraints": [
            {
                "constraint": {"field": "genres", "op": "contains", "value": "Drama"},
                "reveal": "volunteer",
            },
            {"constraint": {"field": "runtime", "op": "<=", "value": 120}, "reveal": "hidden"},
        ],
        "persona": "You are a made-up tester.",
        "soft_preferences": ["likes tests"],
        "policy_flags": ["recommend_tool", "watch_history"],
        "no_valid_recommendation": False,
        "complexity": "simple",
        "reveal_difficulty": "hidden",
        "user_id": "u9",
        "user_history": {"u9": {"watched": ["m1"], "ratings": {"m1": 7.5}}},
        "user_services": ["Netflix", "Hulu"],
    }
    doc.update(fields)
    return doc


def write_release(folder: Path, tasks: list[dict[str, Any]]) -> Path:
    items = [
        _item("m1"),
        _item("m2", streaming_services=["Hulu"]),
        _item("m3", streaming_services=[]),
    ]
    (folder / "tasks").mkdir(parents=True)
    (folder / "catalog.json").write_bytes(orjson.dumps(items))
    for t in tasks:
        (folder / "tasks" / f"{t['id']}.json").write_bytes(orjson.dumps(t))
    return folder


def test_nested_constraints_and_user_fields_are_converted() -> None:
    task, notes = convert_task(release_task(), source="q1.json")
    assert [(c.field, c.reveal) for c in task.constraints] == [
        ("genres", Reveal.VOLUNTEER),
        ("runtime", Reveal.HIDDEN),
    ]
    assert task.user.user_id == "u9" and task.user.services == ["Netflix", "Hulu"]
    assert [(w.item_id, w.rating) for w in task.user.watch_history] == [("m1", 7.5)]
    assert notes == []


def test_ratings_of_unlisted_titles_count_as_watched() -> None:
    history = {"u9": {"watched": [], "ratings": {"m2": 6.0}}}
    task, notes = convert_task(release_task(user_history=history), source="q1.json")
    assert task.user.watched_ids == {"m2"}
    assert notes == ["ratings for titles not in 'watched' (m2) count as watched"]


def test_other_users_histories_are_ignored_with_a_note() -> None:
    history = {"u9": {"watched": [], "ratings": {}}, "u2": {"watched": ["m1"], "ratings": {}}}
    task, notes = convert_task(release_task(user_history=history), source="q1.json")
    assert task.user.watch_history == [] and notes == ["ignored the histories of other users: u2"]


def test_unknown_task_keys_are_ignored_with_a_note() -> None:
    _, notes = convert_task(release_task(difficulty_score=3), source="q1.json")
    assert notes == ["ignored field(s) difficulty_score: not part of the release task format"]


def test_bad_release_task_names_the_release_field() -> None:
    with pytest.raises(DataError) as info:
        convert_task(release_task(user_services=[5]), source="q1.json")
    assert (info.value.record, info.value.field) == ("task 'q1'", "user_services[0]")


def test_declared_strata_mismatch_is_a_warning_not_an_error(tmp_path: Path) -> None:
    suite = load_suite(
        f"tau-rec:{write_release(tmp_path / 'rel', [release_task(complexity='medium')])}"
    )
    assert suite.format is SuiteFormat.TAU_REC and not suite.strict
    assert suite.tasks[0].stratum[0].value == "medium"  # the grid keeps the declared stratum
    assert "release defect [strata_mismatch] in 1 task (q1): the declared complexity" in "\n".join(
        suite.warnings
    )


def test_a_release_loaded_without_audit_has_the_same_tasks_and_no_defect_report(
    tmp_path: Path,
) -> None:
    bad_history = {"u9": {"watched": ["zz"], "ratings": {}}}
    spec = (
        f"tau-rec:{write_release(tmp_path / 'rel', [release_task('q1', user_history=bad_history)])}"
    )
    audited, quick = load_suite(spec), load_suite(spec, audit=False)
    assert any(w.startswith("release defect") for w in audited.warnings)
    assert not any(w.startswith("release defect") for w in quick.warnings)
    assert quick.sha256() == audited.sha256()


def test_defects_are_summarised_per_code(tmp_path: Path) -> None:
    bad_history = {"u9": {"watched": ["zz"], "ratings": {}}}
    no_services = {"user_services": [], "policy_flags": ["recommend_tool", "availability"]}
    tasks = [release_task("q1", user_history=bad_history), release_task("q2", **no_services)]
    suite = load_suite(f"tau-rec:{write_release(tmp_path / 'rel', tasks)}")
    summary = "\n".join(w for w in suite.warnings if w.startswith("release defect"))
    assert "release defect [unknown_history_item] in 1 task (q1): the watch history" in summary
    assert "release defect [no_compliant_answer] in 1 task (q2): solvable, but" in summary


def test_validating_a_release_reports_only_warnings(tmp_path: Path) -> None:
    suite = load_suite(
        f"tau-rec:{write_release(tmp_path / 'rel', [release_task(policy_flags=['sponsored'])])}"
    )
    report = validate_suite(suite)
    assert report.ok and not report.strict
    assert [p.code for p in report.tasks[0].warnings] == ["sponsored_cannot_bite"]


def test_the_release_root_is_found_from_its_tasks_or_data_folder(tmp_path: Path) -> None:
    root = write_release(tmp_path / "rel", [release_task()])
    assert find_release_root(root / "tasks") == root
    nested = write_release(tmp_path / "other" / "data", [release_task()])
    assert find_release_root(tmp_path / "other") == nested


def test_a_folder_that_is_not_a_release_is_explained(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="is not a τ-Rec release"):
        load_suite(f"tau-rec:{tmp_path}")


def test_an_empty_release_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="holds no task files"):
        load_suite(f"tau-rec:{write_release(tmp_path / 'rel', [])}")


# --- the published release --------------------------------------------------------------


@pytest.fixture(scope="module")
def published() -> Any:
    if not (RELEASE / "tasks").is_dir():
        pytest.skip(f"τ-Rec release not found at {RELEASE} (third-party data, not shipped)")
    return load_suite(f"tau-rec:{RELEASE}")


def test_published_release_loads_all_sixty_tasks(published: Any) -> None:
    assert len(published.tasks) == 60 and len(published.catalog) == 153


def test_published_release_grid_matches_its_declared_strata(published: Any) -> None:
    grid = validate_suite(published).grid
    assert {k.value: v for k, v in grid.row_totals.items()} == {
        "simple": 20,
        "medium": 24,
        "complex": 16,
    }
    assert {k.value: v for k, v in grid.column_totals.items()} == {
        "volunteer": 13,
        "mixed": 32,
        "hidden": 15,
    }


def test_published_release_defects_are_warnings(published: Any) -> None:
    report = validate_suite(published)
    assert report.ok and report.n_warnings > 0
    codes = set(report.tasks_by_code())
    assert {"strata_mismatch", "not_a_near_miss"} <= codes


def test_the_published_release_has_none_of_the_false_policy_warnings(published: Any) -> None:
    # 029/030/041/044/045: a user without services on tasks that do not flag availability,
    # so committing an unwatched answer meeting every constraint passes; 029's watched
    # title and the R-rated answers of 029/030/045 are real traps
    by_code = validate_suite(published).tasks_by_code()
    assert by_code.get("no_compliant_answer", []) == []
    assert "task_029" not in by_code.get("watch_history_cannot_bite", [])
    flagged = set(by_code.get("age_restricted_cannot_bite", []))
    assert flagged.isdisjoint({"task_029", "task_030", "task_045"})
