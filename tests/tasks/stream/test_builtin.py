"""The shipped stream suite: it loads as `stream:builtin` (40 streams per setting, the
paper's 40 seeds), regenerating it from its plan gives exactly the shipped streams, and
its task files leave their items and personas to the suite's pool."""

from __future__ import annotations

from collections import Counter

import orjson

from taurec.catalog.store import BUILTIN, Catalog
from taurec.tasks.stream.generator import BUILTIN_PERSONAS, BUILTIN_PLAN, movie_streams
from taurec.tasks.stream.pool import POOL_FILE
from taurec.tasks.stream.task import StreamSetting
from taurec.tasks.suite import load_suite, packaged_suites_dir
from taurec.tasks.task_files import TASKS_DIR


def test_stream_builtin_loads_40_streams_of_10_episodes_per_setting() -> None:
    suite = load_suite("stream:builtin")
    assert suite.kind == "stream"
    assert Counter(t.setting for t in suite.tasks) == {s: 40 for s in StreamSetting}
    assert all(len(t.episodes) == 10 for t in suite.tasks)


def test_the_shipped_streams_are_what_the_generator_makes() -> None:
    shipped = {t.id: t for t in load_suite("stream:builtin").tasks}
    made = {t.id: t for t in movie_streams(Catalog.load(BUILTIN), BUILTIN_PLAN, BUILTIN_PERSONAS)}
    assert made.keys() == shipped.keys()
    assert all(made[k].sha256() == shipped[k].sha256() for k in made)


def test_the_shipped_task_files_leave_items_and_personas_to_the_pool() -> None:
    folder = packaged_suites_dir() / "stream"
    assert (folder / POOL_FILE).is_file()
    for path in (folder / TASKS_DIR).glob("*.json"):
        doc = orjson.loads(path.read_bytes())
        assert "items" not in doc and "personas" not in doc, path.name
