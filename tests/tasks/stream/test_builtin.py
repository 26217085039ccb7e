"""The shipped stream suite: it loads as `stream:builtin` (40 streams per setting, the
paper's 40 seeds), regenerating it from its plan gives exactly the shipped streams, and
its task files leave their items and personas to the suite's pool. The plan is drawn
isolated, each stream's episodes balanced so a random pick's expected regret has no
trend; drawn as BIEL's seeds in drawn order (`--cross-stream biel --episode-order
drawn`) it gives the suite shipped first, with its leaks, and in drawn order alone the
one shipped before the balancing."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace
from functools import cache

import orjson

from taurec.catalog.store import BUILTIN, Catalog
from taurec.tasks.stream.generator import (
    BUILTIN_PERSONAS,
    BUILTIN_PLAN,
    CrossStream,
    StreamPlan,
    movie_streams,
)
from taurec.tasks.stream.leaks import stream_leaks
from taurec.tasks.stream.ordering import EpisodeOrder, random_regret, trend
from taurec.tasks.stream.pool import POOL_FILE
from taurec.tasks.stream.task import FeedbackKind, StreamSetting, StreamTask
from taurec.tasks.suite import load_suite, packaged_suites_dir
from taurec.tasks.task_files import TASKS_DIR

#: sha256 over "<id> <task sha256>\n" in id order: the suite shipped while the built-in
#: plan was drawn as BIEL's (before it was drawn isolated).
BIEL_DRAW_SHA256 = "bbf97f487adc88addd7604315a9ed8e967653316a6f0fb085af98e389ef3ddc2"
#: The same, of the suite shipped while it was drawn isolated in drawn order.
DRAWN_ORDER_SHA256 = "80c1402a984c6208beb96f26bb9fe2414dede1dd7dab7f94c00505a9c1f61a7b"


@cache
def biel_draw() -> list[StreamTask]:
    plan = replace(BUILTIN_PLAN, cross_stream=CrossStream.BIEL, episode_order=EpisodeOrder.DRAWN)
    return movie_streams(Catalog.load(BUILTIN), plan, BUILTIN_PERSONAS)


def suite_sha256(tasks: list[StreamTask]) -> str:
    lines = "".join(f"{t.id} {t.sha256()}\n" for t in sorted(tasks, key=lambda t: t.id))
    return hashlib.sha256(lines.encode()).hexdigest()


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


def test_the_plan_is_biels_seeds_drawn_isolated_and_nothing_else_changed() -> None:
    as_biel = StreamPlan(
        n=40,
        feedback=(FeedbackKind.REGRET, FeedbackKind.STARS, FeedbackKind.PERSONA),
        seed=0,
        cross_stream=CrossStream.BIEL,
    )
    assert BUILTIN_PLAN.cross_stream is CrossStream.ISOLATED
    assert replace(BUILTIN_PLAN, cross_stream=CrossStream.BIEL) == as_biel


def test_the_plan_drawn_as_biel_is_the_suite_shipped_before() -> None:
    assert suite_sha256(biel_draw()) == BIEL_DRAW_SHA256
    assert suite_sha256(load_suite("stream:builtin").tasks) != BIEL_DRAW_SHA256


def test_the_plan_in_drawn_order_is_the_suite_shipped_before_its_episodes_were_balanced() -> None:
    plan = replace(BUILTIN_PLAN, episode_order=EpisodeOrder.DRAWN)
    drawn = movie_streams(Catalog.load(BUILTIN), plan, BUILTIN_PERSONAS)
    assert suite_sha256(drawn) == DRAWN_ORDER_SHA256


def test_no_setting_of_the_shipped_suite_has_a_trend_for_a_random_pick() -> None:
    tasks = [t for t in load_suite("stream:builtin").tasks if isinstance(t, StreamTask)]
    for setting in StreamSetting:
        streams = [t for t in tasks if t.setting is setting]
        by_episode = [
            sum(random_regret(t.episodes[k]) for t in streams) / len(streams) for k in range(10)
        ]
        assert abs(trend(by_episode)) < 0.01, setting


def test_the_plan_drawn_as_biel_still_leaks_as_documented() -> None:
    leaks = stream_leaks(biel_draw())
    assert (leaks.hard_episodes, len(leaks.hard)) == (519, 120)
    assert (leaks.personas, leaks.shared, leaks.most_streams) == (120, 120, 13)
    assert leaks.stream_pairs == 2131
