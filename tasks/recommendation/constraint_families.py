"""The constraint families a generated task is grown from: each draws a loose predicate
that a target item satisfies (a genre, a runtime range, a rating floor, ...), or None
when the item gives it nothing to say. The genre family is every task's anchor."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from taurec.catalog.item import ContentRating, Item
from taurec.tasks.recommendation.constraint import Constraint, Op

Family = Callable[[random.Random, Item, "Pools"], Constraint | None]


@dataclass(frozen=True)
class Pools:
    """What the families draw on: the catalog's genres, services and languages."""

    genres: list[str]
    services: list[str]
    languages: list[str]


def _c(field: str, op: Op, value: object) -> Constraint:
    return Constraint(field=field, op=op, value=value)


def anchor_genre(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    if not t.genres:
        return None
    g = rng.choice(t.genres)
    others = [x for x in p.genres if x not in t.genres]
    if others and rng.random() < 0.25:
        return _c("genres", Op.CONTAINS_ANY, sorted([g, rng.choice(others)]))
    return _c("genres", Op.CONTAINS, g)


def _not_genre(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    others = [x for x in p.genres if x not in t.genres]
    return _c("genres", Op.NOT_CONTAINS, rng.choice(others)) if others else None


def _runtime(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    slack = rng.choice((0, 10, 20))
    lo, hi = max(0, t.runtime // 10 * 10 - slack), math.ceil(t.runtime / 10) * 10 + slack
    return rng.choice(
        (_c("runtime", Op.LE, hi), _c("runtime", Op.GE, lo), _c("runtime", Op.BETWEEN, [lo, hi]))
    )


def _rating(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    floor = math.floor(t.rating * 2) / 2 - rng.choice((0.0, 0.5, 1.0))
    return _c("rating", Op.GE, max(0.0, floor))


def _content_rating(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    if rng.random() < 0.4:
        return _c("content_rating", Op.EQ, t.content_rating.value)
    extra = rng.choice([r.value for r in ContentRating if r is not t.content_rating])
    return _c("content_rating", Op.IN, sorted({t.content_rating.value, extra}))


def _release(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    y, a, b = t.release_date.year, rng.choice((0, 2, 5)), rng.choice((0, 2, 5))
    return rng.choice(
        (
            _c("release_date", Op.GE, y - a),
            _c("release_date", Op.LE, y + b),
            _c("release_date", Op.BETWEEN, [y - a, y + b]),
        )
    )


def _services(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    if not t.streaming_services:
        return None
    k = rng.randint(1, min(2, len(t.streaming_services)))
    return _c("streaming_services", Op.CONTAINS_ANY, sorted(rng.sample(t.streaming_services, k)))


def _director(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    return _c("director", Op.EQ, t.director) if t.director else None


def _cast(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    return _c("cast", Op.CONTAINS, rng.choice(t.cast[:3])) if t.cast else None


def _language(rng: random.Random, t: Item, p: Pools) -> Constraint | None:
    if len(p.languages) < 2:
        return None  # every item shares one language: the constraint would say nothing
    if rng.random() < 0.5:
        return _c("original_language", Op.EQ, t.original_language)
    return _c(
        "original_language", Op.NE, rng.choice([x for x in p.languages if x != t.original_language])
    )


#: (family, weight, group): at most one constraint per group in a task.
FAMILIES: tuple[tuple[Family, int, str], ...] = (
    (_not_genre, 2, "genres-"),
    (_runtime, 5, "runtime"),
    (_rating, 5, "rating"),
    (_content_rating, 3, "content_rating"),
    (_release, 4, "release_date"),
    (_services, 2, "streaming_services"),
    (_director, 1, "director"),
    (_cast, 1, "cast"),
    (_language, 2, "original_language"),
)
