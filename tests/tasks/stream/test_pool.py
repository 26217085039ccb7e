"""A stream suite's pool.json: task files leave out the items and personas it rebuilds
exactly (same order, same task sha256), keep them in full otherwise, and a folder
without a pool loads as before."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from support.streams import make_stream

from taurec.catalog.errors import DataError
from taurec.tasks.stream.pool import POOL_FILE
from taurec.tasks.stream.task import FeedbackKind, StreamSetting, StreamTask
from taurec.tasks.suite import SuiteManifest, load_suite, task_record, write_suite_dir

MANIFEST = SuiteManifest(format_version=1, id="s", catalog="builtin", kind="stream")


def streams() -> list[StreamTask]:
    return [
        make_stream(StreamSetting.VARIABLE_CATEGORY, episodes=3),
        make_stream(StreamSetting.VARIABLE_PERSONA, FeedbackKind.STARS, episodes=3, seed=1),
    ]


def task_doc(folder: Path, task_id: str) -> dict:
    return orjson.loads((folder / "tasks" / f"{task_id}.json").read_bytes())


def hashes(tasks: list[StreamTask]) -> dict[str, str]:
    return {t.id: t.sha256() for t in tasks}


def test_a_written_suite_loads_the_same_tasks_from_its_pool(tmp_path: Path) -> None:
    tasks = streams()
    write_suite_dir(tmp_path, MANIFEST, tasks)
    assert (tmp_path / POOL_FILE).is_file()
    for t in tasks:
        doc = task_doc(tmp_path, t.id)
        assert "items" not in doc and "personas" not in doc
    assert hashes(load_suite(str(tmp_path)).tasks) == hashes(tasks)


def test_a_suite_without_a_pool_loads_as_before(tmp_path: Path) -> None:
    tasks = streams()
    write_suite_dir(tmp_path, MANIFEST, tasks)
    (tmp_path / POOL_FILE).unlink()
    for t in tasks:  # the task files of a suite written before pools
        (tmp_path / "tasks" / f"{t.id}.json").write_bytes(orjson.dumps(task_record(t)))
    assert hashes(load_suite(str(tmp_path)).tasks) == hashes(tasks)


def test_a_task_whose_item_differs_from_the_pools_keeps_its_items_in_full(
    tmp_path: Path,
) -> None:
    first = make_stream(StreamSetting.VARIABLE_CATEGORY, episodes=3)
    renamed = [i.model_copy(update={"title": "Another title"}) for i in first.items]
    doc = {**first.model_dump(), "id": "other", "items": [i.model_dump() for i in renamed]}
    other = StreamTask.model_validate(doc)
    write_suite_dir(tmp_path, MANIFEST, [first, other])
    kept = task_doc(tmp_path, "other")
    assert [i["title"] for i in kept["items"]] == ["Another title"] * len(renamed)
    assert "personas" not in kept  # its personas are the pool's: left out
    assert hashes(load_suite(str(tmp_path)).tasks) == hashes([first, other])


def test_personas_in_another_order_are_kept_in_full(tmp_path: Path) -> None:
    task = make_stream(StreamSetting.VARIABLE_PERSONA, episodes=3)
    doc = {**task.model_dump(), "personas": [p.model_dump() for p in task.personas[::-1]]}
    reordered = StreamTask.model_validate(doc)
    write_suite_dir(tmp_path, MANIFEST, [reordered])
    kept = task_doc(tmp_path, reordered.id)
    assert [p["id"] for p in kept["personas"]] == [p.id for p in reordered.personas]
    assert "items" not in kept
    assert hashes(load_suite(str(tmp_path)).tasks) == hashes([reordered])


def test_an_item_left_out_and_missing_from_the_pool_is_named(tmp_path: Path) -> None:
    (task,) = streams()[:1]
    write_suite_dir(tmp_path, MANIFEST, [task])
    pool = orjson.loads((tmp_path / POOL_FILE).read_bytes())
    gone = task.episodes[0].item_ids[0]
    pool["items"] = [i for i in pool["items"] if i["id"] != gone]
    (tmp_path / POOL_FILE).write_bytes(orjson.dumps(pool))
    with pytest.raises(DataError) as info:
        load_suite(str(tmp_path))
    err = info.value
    assert err.source is not None and err.source.endswith(f"{task.id}.json")
    assert err.field == "items" and repr(gone) in err.detail and POOL_FILE in err.detail


def test_a_malformed_pool_names_its_file(tmp_path: Path) -> None:
    write_suite_dir(tmp_path, MANIFEST, streams())
    (tmp_path / POOL_FILE).write_bytes(b'{"items": 3}')
    with pytest.raises(DataError) as info:
        load_suite(str(tmp_path))
    assert info.value.source is not None and info.value.source.endswith(POOL_FILE)
    assert info.value.field == "items"
