"""Builders for stream (BIEL) tests: movie choice items, personas, and small streams."""

from __future__ import annotations

from functools import cache

from taurec.catalog.choice_items import ChoiceItem, from_movie
from taurec.catalog.choice_sets import Category, movie_categories
from taurec.catalog.personas import Persona, persona_pool
from taurec.catalog.store import BUILTIN, Catalog
from taurec.tasks.stream.generator import StreamPlan, generate_streams
from taurec.tasks.stream.task import FeedbackKind, StreamSetting, StreamTask


@cache
def movie_items() -> tuple[ChoiceItem, ...]:
    return tuple(from_movie(i) for i in Catalog.load(BUILTIN).items)


@cache
def categories() -> tuple[Category, ...]:
    return tuple(movie_categories(movie_items()))


@cache
def personas(n: int = 20, seed: int = 0) -> tuple[Persona, ...]:
    return tuple(persona_pool(movie_items(), n, seed))


def make_stream(
    setting: StreamSetting = StreamSetting.VARIABLE_CATEGORY,
    feedback: FeedbackKind = FeedbackKind.REGRET,
    *,
    episodes: int = 3,
    seed: int = 0,
) -> StreamTask:
    plan = StreamPlan(settings=(setting,), n=1, episodes=episodes, feedback=(feedback,), seed=seed)
    return generate_streams(movie_items(), personas(), categories(), plan)[0]
