"""Replay re-runs logged read-only calls against the catalog and reports differences."""

from pathlib import Path

import orjson

from taurec.catalog.io import read_catalog_file, write_catalog_file
from taurec.catalog.store import Catalog
from taurec.evaluator.logs import Resolver, score_paths
from taurec.tasks.recommendation.catalog_tools import replay_call


def _score(logs, **kw):
    (score,) = score_paths([logs.out], Resolver(**{"suite": logs.spec, **kw}))
    return score


def _true_result(suite_dir: Path, name: str, arguments: dict) -> dict:
    from taurec.tasks.suite import load_suite

    suite = load_suite(str(suite_dir))
    result = replay_call(suite.catalog, suite.tasks[0], name, arguments)
    assert result is not None
    return result


def test_faithful_results_replay_without_problems(logs, suite_dir):
    calls = [
        (
            "get_item",
            {"item_id": "c1"},
            _true_result(suite_dir, "get_item", {"item_id": "c1"}),
            False,
        ),
        (
            "search_catalog",
            {"query": "film"},
            _true_result(suite_dir, "search_catalog", {"query": "film"}),
            False,
        ),
    ]
    logs.episode("ta", 0, item="c1", calls=calls)
    score = _score(logs)
    assert score.replay_mismatches == 0 and score.problems == []
    assert score.passed


def test_an_edited_tool_result_is_reported_with_its_event(logs, suite_dir):
    content = _true_result(suite_dir, "get_item", {"item_id": "h1"})
    content["runtime"] = 90  # the log claims h1 is short
    logs.episode("ta", 0, item="c1", calls=[("get_item", {"item_id": "h1"}, content, False)])
    score = _score(logs)
    assert score.replay_mismatches == 1
    assert any("seq 4: get_item result differs" in p for p in score.problems)


def test_a_logged_error_that_replays_as_success_is_reported(logs):
    logs.episode("ta", 0, item="c1", calls=[("get_item", {"item_id": "c1"}, "no such item", True)])
    assert any("succeeds on replay, but the log shows an error" in p for p in _score(logs).problems)


def test_a_logged_result_for_a_call_that_must_fail_is_reported(logs):
    logs.episode("ta", 0, item="c1", calls=[("get_item", {"item_id": "zzz"}, {"id": "zzz"}, False)])
    assert any("fails on replay, but the log shows a result" in p for p in _score(logs).problems)


def test_catalog_drift_is_reported_per_episode(logs, suite_dir):
    logs.episode(
        "ta",
        0,
        item="c1",
        calls=[
            (
                "get_item",
                {"item_id": "c1"},
                _true_result(suite_dir, "get_item", {"item_id": "c1"}),
                False,
            )
        ],
    )
    meta, items = read_catalog_file(suite_dir / "catalog.json")
    items[0] = items[0].model_copy(update={"runtime": 200})
    write_catalog_file(suite_dir / "catalog.json", meta, items)
    score = _score(logs)
    assert score.replay_mismatches == 1
    assert any("catalog sha256 differs" in p for p in score.problems)


def test_replay_can_be_switched_off(logs, suite_dir):
    content = _true_result(suite_dir, "get_item", {"item_id": "h1"})
    content["runtime"] = 90
    logs.episode("ta", 0, item="c1", calls=[("get_item", {"item_id": "h1"}, content, False)])
    assert _score(logs, replay=False).replay_mismatches == 0


def test_json_report_counts_episodes_with_replay_mismatches(logs, suite_dir):
    from typer.testing import CliRunner

    from taurec.evaluator.cli.main import app

    content = _true_result(suite_dir, "get_item", {"item_id": "h1"})
    content["title"] = "Forged"
    logs.episode("ta", 0, item="c1", calls=[("get_item", {"item_id": "h1"}, content, False)])
    logs.episode("tb", 0, item="d1")
    result = CliRunner().invoke(app, ["score", str(logs.out), "--suite", logs.spec, "--json"])
    (group,) = orjson.loads(result.stdout)["groups"]
    assert group["replay_mismatch_episodes"] == 1
    assert "result differs" in result.stderr
    assert Catalog.load(suite_dir / "catalog.json").get("h1").title != "Forged"


def test_logs_replay_without_drift_against_a_catalog_folder_of_the_same_items(
    logs, suite_dir, tmp_path
):
    from taurec.catalog.folder import write_catalog_folder

    calls = [
        (name, args, _true_result(suite_dir, name, args), False)
        for name, args in (
            ("get_item", {"item_id": "c1"}),
            ("search_catalog", {"query": "film"}),
            ("filter_catalog", {"genres_any": ["Comedy"], "limit": 1}),
        )
    ]
    json_catalog = Catalog.load(suite_dir / "catalog.json")
    folder = write_catalog_folder(
        tmp_path / "same.taurec-catalog", json_catalog.meta, json_catalog.items
    )
    logs.catalog_sha = Catalog.load(folder).sha256()  # the episode ran against the folder
    logs.episode("ta", 0, item="c1", calls=calls)
    by_folder, by_file = _score(logs, catalog=str(folder)), _score(logs)
    assert by_folder.replay_mismatches == 0 and by_folder.problems == []
    assert by_folder.passed == by_file.passed and by_folder.reward == by_file.reward


def _tasks_by_services():
    from taurec.tasks.recommendation.generator import generate_tasks

    catalog = Catalog.load("builtin")
    tasks = generate_tasks(catalog, 30, 0)
    by: dict[tuple[str, ...], list] = {}
    for task in tasks:
        by.setdefault(tuple(task.user.services), []).append(task)
    return catalog, by


def test_availability_replays_per_services_so_tasks_with_other_services_get_their_own_answer():
    from taurec.evaluator.recommendation.replay import Replayer

    catalog, by = _tasks_by_services()
    first, *others = by.values()
    replayer = Replayer(catalog)
    for item in catalog.ids[:20]:
        args = {"episode_id": "e", "item_id": item}
        replayer.expected(first[0], "check_availability", args)  # cached for these services
        for group in others:
            assert replayer.expected(group[0], "check_availability", args) == replay_call(
                catalog, group[0], "check_availability", args
            )


def test_tasks_with_the_same_services_share_one_replayed_availability():
    from taurec.evaluator.recommendation.replay import Replayer

    catalog, by = _tasks_by_services()
    a, b = next(group for group in by.values() if len(group) > 1)[:2]
    assert a.id != b.id
    replayer = Replayer(catalog)
    args = {"episode_id": "e", "item_id": catalog.ids[0]}
    assert replayer.expected(a, "check_availability", args) is replayer.expected(
        b, "check_availability", args
    )
