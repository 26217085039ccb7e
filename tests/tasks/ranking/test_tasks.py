"""Ranking tasks: the schema's checks, the generator, the validator, the shipped suite."""

import itertools
from pathlib import Path

import orjson
import pytest
from support.ranking import SMALL, small_data, small_tasks, write_ranking_suite

from taurec.catalog.errors import DataError
from taurec.tasks.ranking.generator import generate_ranking_tasks
from taurec.tasks.ranking.siblings import sibling_leaks
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.ranking.validate import validate_ranking_tasks
from taurec.tasks.suite import SuiteManifest, load_suite, write_suite_dir


def test_generated_tasks_have_twenty_distinct_candidates_holding_the_positive():
    for task in small_tasks():
        assert len(task.candidates) == len(set(task.candidates)) == 20
        assert task.positive in task.candidates


def test_history_is_at_most_ten_items_all_before_the_target():
    data = small_data()
    for task in small_tasks():
        u = data.user_of(task.user_id)
        lo, hi = data.before(u, task.target_time)
        assert 1 <= len(task.history) <= 10
        assert task.history == [data.items[i].id for i in data.item[max(lo, hi - 10) : hi]]


def test_negatives_are_never_items_the_user_had_by_the_target():
    assert validate_ranking_tasks(list(small_tasks()), small_data()) == {}


def test_generation_is_seeded():
    again = generate_ranking_tasks(small_data(), 12, seed=0)
    assert [t.sha256() for t in again] == [t.sha256() for t in small_tasks()]
    other = generate_ranking_tasks(small_data(), 12, seed=1)
    assert [t.sha256() for t in other] != [t.sha256() for t in small_tasks()]


def test_validator_reports_a_negative_from_the_users_past():
    task = small_tasks()[0]
    negative = next(c for c in task.candidates if c != task.positive)
    bad = task.model_copy(
        update={
            "candidates": [task.history[-1] if c == negative else c for c in task.candidates],
            "history": task.history,
        }
    )
    problems = validate_ranking_tasks([bad], small_data())
    assert "is an item the user had by their earliest target in the suite" in problems[task.id][-1]


def test_a_positive_outside_the_candidates_is_a_load_error_naming_the_field(tmp_path: Path):
    folder = write_ranking_suite(tmp_path / "s", n=2)
    path = next((folder / "tasks").glob("*.json"))
    doc = orjson.loads(path.read_bytes())
    doc["positive"] = "syn_999999"
    path.write_bytes(orjson.dumps(doc))
    with pytest.raises(
        DataError, match=r"field 'positive': 'syn_999999' is not among the candidates"
    ):
        load_suite(str(folder))


def test_a_recommendation_task_in_a_ranking_suite_is_refused(tmp_path: Path):
    folder = write_ranking_suite(tmp_path / "s", n=2)
    (folder / "tasks" / "x.json").write_bytes(
        orjson.dumps(
            {
                "id": "x",
                "persona": "p",
                "constraints": [{"field": "genres", "op": "contains", "value": "Comedy"}],
            }
        )
    )
    with pytest.raises(DataError, match="is a 'recommendation' task in a 'ranking' suite"):
        load_suite(str(folder))


def test_the_shipped_ranking_suite_loads_as_ranking_builtin():
    suite = load_suite("ranking:builtin")
    assert suite.kind == "ranking" and len(suite.tasks) == 200
    assert all(isinstance(t, RankingTask) for t in suite.tasks)
    assert suite.data == {"interactions": "synthetic", "split": "global", "part": "test"}


def test_tasks_validate_checks_a_ranking_suite_against_its_data(tmp_path: Path):
    from typer.testing import CliRunner

    from taurec.clients.cli.main import app

    folder = write_ranking_suite(tmp_path / "s", n=3)
    assert CliRunner().invoke(app, ["tasks", "validate", str(folder)]).exit_code == 0
    path = next((folder / "tasks").glob("*.json"))
    doc = orjson.loads(path.read_bytes())
    doc["user_id"] = "nobody"
    path.write_bytes(orjson.dumps(doc))
    result = CliRunner().invoke(app, ["tasks", "validate", str(folder)])
    assert result.exit_code == 1 and "unknown user 'nobody'" in result.stdout


def _siblings() -> list[RankingTask]:
    return generate_ranking_tasks(small_data(), 60, seed=3, per_user=3)


def test_a_history_holding_a_siblings_answer_is_named_by_the_validator():
    tasks = _siblings()
    first, second = next((a, b) for a, b in itertools.pairwise(tasks) if a.user_id == b.user_id)
    assert sibling_leaks(tasks) == {}
    leaky = second.model_copy(update={"history": [*second.history[1:], first.positive]})
    found = sibling_leaks(
        [first if t.id == first.id else leaky if t.id == second.id else t for t in tasks]
    )
    assert (
        f"its positive {first.positive!r} is in the history of task {second.id!r}"
        in found[first.id][0]
    )
    assert "must stop where the earliest's does" in found[second.id][0]


def test_the_validator_reports_a_leaking_suite_from_its_files(tmp_path: Path):
    from typer.testing import CliRunner

    from taurec.clients.cli.main import app

    tasks = _siblings()
    first, second = next((a, b) for a, b in itertools.pairwise(tasks) if a.user_id == b.user_id)
    manifest = SuiteManifest(
        format_version=1,
        id="leaky",
        kind="ranking",
        data={"interactions": SMALL, "split": "global", "part": "test"},
    )
    leaky = second.model_copy(update={"history": [*second.history[1:], first.positive]})
    folder = write_suite_dir(tmp_path / "s", manifest, [first, leaky])
    result = CliRunner().invoke(app, ["tasks", "validate", str(folder)])
    assert result.exit_code == 1 and "is in the history of task" in result.stdout


def test_siblings_lists_share_no_candidate():
    """The leak a zero-tool contestant used (NDCG@10 0.266 with `--per-user 3`, above
    popularity's 0.261): the earliest task's positive is in the user's records by its own
    target, so it is never a sibling's negative, while the negatives of both come from one
    pool; a candidate also in a sibling's list was then never the earliest task's answer.
    With no item in two lists there is nothing to rule out."""
    tasks = _siblings()
    by_user: dict[str, list[RankingTask]] = {}
    for task in tasks:
        by_user.setdefault(task.user_id, []).append(task)
    assert any(len(group) == 3 for group in by_user.values())
    for group in by_user.values():
        listed = [item for task in group for item in task.candidates]
        assert len(listed) == len(set(listed)), group[0].user_id
    assert validate_ranking_tasks(tasks, small_data()) == {}


def test_a_candidate_shared_with_a_sibling_is_named_by_the_validator():
    tasks = _siblings()
    first, second = next((a, b) for a, b in itertools.pairwise(tasks) if a.user_id == b.user_id)
    negative = next(c for c in first.candidates if c != first.positive)
    kept = [c for c in second.candidates if c != second.positive][1:]
    shared = second.model_copy(update={"candidates": [second.positive, negative, *kept]})
    found = sibling_leaks([shared if t.id == second.id else t for t in tasks])
    expected = f"candidate {negative!r} is also a candidate of task {first.id!r} (same user)"
    assert expected in found[second.id][0]
    assert f"is also a candidate of task {second.id!r}" in found[first.id][0]
