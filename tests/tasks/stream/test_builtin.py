"""The shipped stream suite: it loads as `stream:builtin`, and regenerating it from its
plan gives exactly the shipped streams."""

from __future__ import annotations

from taurec.catalog.store import BUILTIN, Catalog
from taurec.tasks.stream.generator import BUILTIN_PERSONAS, BUILTIN_PLAN, movie_streams
from taurec.tasks.stream.task import StreamSetting
from taurec.tasks.suite import load_suite


def test_stream_builtin_loads_as_a_stream_suite_of_every_setting() -> None:
    suite = load_suite("stream:builtin")
    assert suite.kind == "stream"
    assert {t.setting for t in suite.tasks} == set(StreamSetting)
    assert all(len(t.episodes) == 10 for t in suite.tasks)


def test_the_shipped_streams_are_what_the_generator_makes() -> None:
    shipped = {t.id: t for t in load_suite("stream:builtin").tasks}
    made = {t.id: t for t in movie_streams(Catalog.load(BUILTIN), BUILTIN_PLAN, BUILTIN_PERSONAS)}
    assert made.keys() == shipped.keys()
    assert all(made[k].sha256() == shipped[k].sha256() for k in made)
