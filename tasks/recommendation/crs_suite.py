"""Tasks a text-only CRS can win (`taurec tasks generate --for crs`): no policy that needs a
tool lookup (the user's history, availability, the maturity gate), no task without an
answer (a CRS cannot abstain), and constraints only on what a film catalog of titles,
years, genres and audience ratings says (MovieLens, say: `taurec catalog build
movielens:recbole`).

Each task is grown around a target film with a genre and enough votes: a genre it has
(volunteered), then, drawn per seed, a release-year range around its year and an
audience-rating floor below its rating, each kept only while at least two films match.
The user (an id of its own) subscribes to nothing and has watched nothing; the only flag
is recommend_tool (and, on one task in five, single_recommendation, which text alone
satisfies). Every task passes strict validation with no warnings, and a task that would
give another's answer away, or whose answer another would give away, is drawn again
(`taurec.tasks.recommendation.leaks`).
"""

from __future__ import annotations

import random
from typing import Final

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.constraint import Constraint, Op, Reveal
from taurec.tasks.recommendation.constraint_mask import constraints_mask
from taurec.tasks.recommendation.generator import PERSONAS
from taurec.tasks.recommendation.leaks import LeakIndex, refuse_leaks
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask, UserContext
from taurec.tasks.recommendation.validate import Vocabulary, check_task

#: A target needs at least this many audience votes (its rating means something).
MIN_VOTES: Final = 20
MIN_ANSWERS: Final = 2
MAX_ATTEMPTS: Final = 400
#: Personas with no maturity gate: a text-only CRS cannot check one.
_PERSONAS: Final = tuple(p for p in PERSONAS if p.maturity_limit is None and (p.age or 18) >= 18)


def _decade(item: Item) -> Constraint:
    start = item.release_date.year // 10 * 10
    return Constraint(field="release_date", op=Op.BETWEEN, value=[start, start + 9])


def _floor(item: Item) -> Constraint:
    return Constraint(field="rating", op=Op.GE, value=max(0.0, float(int(item.rating) - 1)))


def _one(
    task_id: str,
    rng: random.Random,
    pool: list[Item],
    catalog: Catalog,
    vocab: Vocabulary,
    accepted: LeakIndex,
) -> RecommendationTask:
    for _ in range(MAX_ATTEMPTS):
        target = rng.choice(pool)
        constraints = [Constraint(field="genres", op=Op.CONTAINS, value=rng.choice(target.genres))]
        for extra in rng.sample([_decade(target), _floor(target)], rng.randint(0, 2)):
            if int(constraints_mask([*constraints, extra], catalog).sum()) >= MIN_ANSWERS:
                constraints.append(extra)
        if int(constraints_mask(constraints, catalog).sum()) < MIN_ANSWERS:
            continue
        reveals = [Reveal.VOLUNTEER] + [
            rng.choice((Reveal.VOLUNTEER, Reveal.ON_ASK, Reveal.HIDDEN)) for _ in constraints[1:]
        ]
        flags = [PolicyName.RECOMMEND_TOOL]
        if rng.random() < 0.2:
            flags.append(PolicyName.SINGLE_RECOMMENDATION)
        task = RecommendationTask(
            id=task_id,
            persona=rng.choice(_PERSONAS).text,
            constraints=[
                c.model_copy(update={"reveal": r})
                for c, r in zip(constraints, reveals, strict=True)
            ],
            policy_flags=flags,
            user=UserContext(user_id=f"u_{task_id}"),
        )
        report = check_task(task, catalog, strict=True, vocab=vocab)
        if not report.errors and not report.warnings and not accepted.leaks(task):
            accepted.add(task)
            return task
    raise ValueError(
        f"could not generate a CRS task that no other task gives away after {MAX_ATTEMPTS} "
        f"attempts; the catalog needs films with genres and at least {MIN_VOTES} audience votes"
    )


def generate_crs_tasks(
    catalog: Catalog, n: int, seed: int, id_prefix: str = "crs"
) -> list[RecommendationTask]:
    """n tasks with ids `<id_prefix>_<i>`, equal for equal (catalog, n, seed, prefix)."""
    if n < 0:
        raise ValueError(f"expected n >= 0, got {n}")
    pool = [it for it in catalog if it.genres and it.vote_count >= MIN_VOTES]
    if len(pool) < MIN_ANSWERS:
        raise ValueError(
            f"the catalog has {len(pool)} films with genres and at least {MIN_VOTES} votes; "
            f"expected at least {MIN_ANSWERS}"
        )
    rng = random.Random(seed)
    vocab = Vocabulary(catalog)
    width = max(3, len(str(n - 1)))
    accepted = LeakIndex(catalog)
    tasks = [
        _one(f"{id_prefix}_{i:0{width}d}", rng, pool, catalog, vocab, accepted) for i in range(n)
    ]
    refuse_leaks(tasks, catalog)
    return tasks
