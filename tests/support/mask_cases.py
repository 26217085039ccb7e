"""Seeded constraints and tasks over every field and operator, for the mask equivalence tests.

Pure functions of (catalog, seed): the same cases come out on any version of the package,
so a digest of what the validator says about them pins its behaviour.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import orjson

from taurec.catalog.item import ContentRating, Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.constraint import Constraint, Op
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask, UserContext, WatchEntry

#: Spellings the catalog may not have: case, spacing and alias variants, typos.
_ODD_TEXT = ("  drama ", "COMEDY", "Sci  Fi", "Dramma", "nobody at all", "prime video", "Max")


def _text(rng: random.Random, values: list[str]) -> str:
    if not values or rng.random() < 0.15:
        return rng.choice(_ODD_TEXT)
    v = rng.choice(values)
    roll = rng.random()
    if roll < 0.1:
        return v.upper()
    if roll < 0.2:
        return f" {v.lower()}  "
    return v


def _number(rng: random.Random, field: str, it: Item) -> int | float:
    base = getattr(it, field)
    if field == "rating":
        return rng.choice((base, round(base + rng.uniform(-2, 2), 1), int(base)))
    if rng.random() < 0.2:
        return base + rng.choice((0.5, -0.5))
    return base + rng.choice((-20, -5, 0, 0, 5, 20))


def _date(rng: random.Random, it: Item) -> str | int:
    if rng.random() < 0.5:
        return it.release_date.year + rng.choice((-3, 0, 0, 2))
    return it.release_date.isoformat()


#: Every constrainable field, each drawn by random_constraint.
FIELDS = (
    "genres",
    "cast",
    "streaming_services",
    "keywords",
    "director",
    "original_language",
    "title",
    "runtime",
    "rating",
    "vote_count",
    "release_date",
    "content_rating",
    "sponsored",
)


def random_constraint(rng: random.Random, items: list[Item]) -> Constraint:
    """One constraint on a random field with a random operator the field allows."""
    it = rng.choice(items)
    other = rng.choice(items)
    field = rng.choice(FIELDS)
    if field in ("genres", "cast", "streaming_services", "keywords"):
        pool = getattr(it, field) + getattr(other, field)
        op = rng.choice((Op.CONTAINS, Op.CONTAINS_ANY, Op.NOT_CONTAINS))
        if op is Op.CONTAINS_ANY:
            return Constraint(field=field, op=op, value=[_text(rng, pool) for _ in range(2)])
        return Constraint(field=field, op=op, value=_text(rng, pool))
    if field in ("director", "original_language", "title"):
        pool = [v for v in (getattr(it, field), getattr(other, field)) if v]
        op = rng.choice((Op.EQ, Op.NE, Op.IN))
        if op is Op.IN:
            return Constraint(field=field, op=op, value=[_text(rng, pool) for _ in range(2)])
        return Constraint(field=field, op=op, value=_text(rng, pool))
    if field == "content_rating":
        op = rng.choice((Op.EQ, Op.NE, Op.IN))
        ratings = [r.value for r in ContentRating]
        if op is Op.IN:
            return Constraint(field=field, op=op, value=rng.sample(ratings, rng.randint(1, 3)))
        return Constraint(field=field, op=op, value=rng.choice(ratings))
    if field == "sponsored":
        return Constraint(field=field, op=rng.choice((Op.EQ, Op.NE)), value=rng.random() < 0.5)
    op = rng.choice((Op.LE, Op.GE, Op.BETWEEN, Op.EQ, Op.NE, Op.IN))
    if field == "release_date":
        draw: Any = lambda: _date(rng, rng.choice((it, other)))  # noqa: E731
    else:
        draw = lambda: _number(rng, field, rng.choice((it, other)))  # noqa: E731
    if op is Op.BETWEEN:
        lo, hi = draw(), draw()
        try:
            return Constraint(field=field, op=op, value=[lo, hi])
        except ValueError:
            return Constraint(field=field, op=op, value=[hi, lo])
    if op is Op.IN:
        return Constraint(field=field, op=op, value=[draw() for _ in range(3)])
    return Constraint(field=field, op=op, value=draw())


def random_constraints(catalog: Catalog, n: int, seed: int) -> list[Constraint]:
    rng = random.Random(seed)
    sample = [catalog.items[rng.randrange(len(catalog))] for _ in range(min(200, len(catalog)))]
    return [random_constraint(rng, sample) for _ in range(n)]


_FLAGS = [p for p in PolicyName]


def random_tasks(catalog: Catalog, n: int, seed: int) -> list[RecommendationTask]:
    """Tasks with 1-4 random constraints, random flags and users: solvable or not."""
    rng = random.Random(seed)
    sample = [catalog.items[rng.randrange(len(catalog))] for _ in range(min(200, len(catalog)))]
    services = [*catalog.services(), "Nowhere TV"]
    out = []
    for i in range(n):
        target = rng.choice(sample)
        constraints = [random_constraint(rng, [target]) for _ in range(rng.randint(1, 4))]
        watched = [rng.choice(sample).id for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.1:
            watched.append("no_such_item")
        user = UserContext(
            age=rng.choice((None, 12, 16, 17, 30)),
            services=rng.sample(services, rng.randint(0, 3)),
            watch_history=[WatchEntry(item_id=w) for w in watched],
            maturity_limit=rng.choice(
                (None, None, *(r for r in ContentRating if r is not ContentRating.NR))
            ),
        )
        out.append(
            RecommendationTask(
                id=f"r{i}",
                persona="You are testing.",
                constraints=constraints,
                policy_flags=rng.sample(_FLAGS, rng.randint(0, 4)),
                user=user,
                no_valid_recommendation=rng.random() < 0.3,
            )
        )
    return out


def digest(docs: list[Any]) -> str:
    """sha256 over JSON documents (pydantic models are dumped first)."""
    h = hashlib.sha256()
    for d in docs:
        doc = d.model_dump(mode="json") if hasattr(d, "model_dump") else d
        h.update(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS))
        h.update(b"\n")
    return h.hexdigest()
