"""Generate valid recommendation tasks over any catalog, stratified and seeded.

Task `i` lands in cell `i % 9` of the complexity × reveal-difficulty grid (round robin),
and every tenth task (`i % 10 == 9`) has no valid recommendation. A solvable task is
grown around a target item: each constraint is a loose predicate the target satisfies,
kept only while at least two items still match; the user subscribes to one of the
target's services, so it stays compliant. A no-valid task adds, to constraints built the
same way, one near miss: a predicate that other items satisfy but none of the matches do.
Policy flags are set exactly where they can bite. Every task is checked by
`taurec.tasks.recommendation.validate.check_task` (strict, no warnings) before it is accepted,
and drawn again when another task of the suite would give its answer away or it would give
another's (`taurec.tasks.recommendation.leaks`: the same problem twice, or the same persona
volunteering what another of its tasks keeps back); each user has an id of its own.

Items are drawn by position in id order, and matches are counted as masks over the
catalog's columns (`taurec.tasks.recommendation.constraint_mask`): only the items drawn (targets, near
misses) are decoded, so a catalog folder of a million items generates tasks in seconds.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from taurec.catalog.columns import Mask
from taurec.catalog.indexed import IndexedSequence
from taurec.catalog.item import ContentRating, Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.answer_rows import Rows, gate_mask, ids_of
from taurec.tasks.recommendation.constraint import Constraint, Reveal
from taurec.tasks.recommendation.constraint_families import FAMILIES, Pools, anchor_genre
from taurec.tasks.recommendation.constraint_mask import constraint_mask, constraints_mask
from taurec.tasks.recommendation.leaks import LeakIndex, refuse_leaks
from taurec.tasks.recommendation.policy_bite import biting_policies
from taurec.tasks.recommendation.task import (
    Complexity,
    PolicyName,
    RecommendationTask,
    RevealDifficulty,
    UserContext,
    WatchEntry,
    reveal_difficulty_of,
)
from taurec.tasks.recommendation.validate import Vocabulary, check_task

MAX_ATTEMPTS = 300
NO_VALID_EVERY = 10
CELLS: tuple[tuple[Complexity, RevealDifficulty], ...] = tuple(
    (c, r) for c in Complexity for r in RevealDifficulty
)
#: Constraint counts per complexity and reveal difficulty (an anchor needs k >= 2 to hide).
_COUNTS = {Complexity.SIMPLE: (1, 2), Complexity.MEDIUM: (3, 4), Complexity.COMPLEX: (5, 6)}


@dataclass(frozen=True)
class Persona:
    text: str
    age: int | None = None
    maturity_limit: ContentRating | None = None


PERSONAS: tuple[Persona, ...] = (
    Persona("You are an apprentice electrician hosting your housemates on a rainy evening.", 20),
    Persona(
        "You are a nurse unwinding after a run of night shifts; you want something easy to follow."
    ),
    Persona("You are a retired history teacher who enjoys a film you can discuss afterwards.", 68),
    Persona("You are a parent of two young kids choosing for family night.", 38, ContentRating.PG),
    Persona("You are a software engineer on a long flight with a downloaded-movies habit.", 31),
    Persona("You are 15 and have the living-room screen to yourself once homework is done.", 15),
    Persona(
        "You are a film-club regular who likes to be surprised but hates wasting an evening.", 45
    ),
    Persona("You are planning a quiet anniversary evening at home; you are decisive."),
    Persona("You are a graduate student procrastinating on a thesis, in the mood for a treat.", 26),
    Persona("You are a chef with one free evening a week; you are picky and direct.", 41),
    Persona("You are a 13-year-old at a sleepover choosing what the group watches.", 13),
    Persona("You are a grandparent hosting grandchildren this weekend.", 72, ContentRating.PG_13),
    Persona(
        "You are a new parent watching in short bursts during naps; you are tired and brief.", 34
    ),
    Persona("You are a truck driver resting at a motel with a tablet and an evening to fill.", 50),
    Persona("You are an exchange student practising conversation; you ask friendly questions.", 22),
    Persona("You are a museum guide with a free Sunday afternoon and a big sofa.", 36),
    Persona("You are a 16-year-old who wants a movie your parents would also sit through.", 16),
    Persona("You are a freelance designer who watches while sketching; visuals matter to you.", 29),
    Persona("You are a book-club organiser hunting for the group's next movie evening.", 55),
    Persona("You are a teenager's parent on a shared family profile.", 44, ContentRating.PG_13),
    Persona("You are a night-owl security guard with quiet hours to fill.", 39),
    Persona("You are a busy lawyer with exactly one evening free and no patience for duds.", 47),
)
SOFT_PREFERENCES: tuple[str, ...] = (
    "wants to come away in a good mood",
    "enjoys films with several main characters",
    "enjoys a strong soundtrack",
    "cares more about the people than the plot",
    "prefers a fast pace",
    "enjoys clever dialogue",
    "likes striking visuals",
    "prefers something not too sad",
    "enjoys a twist",
    "likes stories set somewhere unfamiliar",
    "prefers a clear plot over an ambiguous one",
    "enjoys a bit of humour even in serious films",
)


def _reveals(rng: random.Random, k: int, difficulty: RevealDifficulty) -> list[Reveal]:
    """Reveal tags for k constraints (the first is the anchor) whose difficulty is `difficulty`."""
    if difficulty is RevealDifficulty.VOLUNTEER:
        return [Reveal.VOLUNTEER] * k
    if k == 1:
        return [Reveal.ON_ASK if difficulty is RevealDifficulty.MIXED else Reveal.HIDDEN]
    if difficulty is RevealDifficulty.HIDDEN:
        n_hidden = rng.randint(math.ceil(k / 2), k - 1)
        n_ask = rng.randint(0, k - 1 - n_hidden)
    else:
        n_hidden = rng.randint(0, (k - 1) // 2)
        n_ask = rng.randint(1 if n_hidden == 0 else 0, k - 1 - n_hidden)
    rest = [Reveal.HIDDEN] * n_hidden + [Reveal.ON_ASK] * n_ask
    rest += [Reveal.VOLUNTEER] * (k - 1 - len(rest))
    rng.shuffle(rest)
    anchor = (
        Reveal.ON_ASK
        if difficulty is RevealDifficulty.MIXED and rng.random() < 0.2
        else Reveal.VOLUNTEER
    )
    out = [anchor, *rest]
    if reveal_difficulty_of(out) is not difficulty:  # e.g. an on_ask anchor made it too easy
        out[0] = Reveal.VOLUNTEER
    return out


class _IdsWithout(IndexedSequence[str]):
    """Ids in id order, one position left out: what `user` samples extra history from."""

    element, elements = "id", "ids"

    def __init__(self, ids: list[str], rows: Rows, skip: int) -> None:
        self._ids, self._rows, self._skip = ids, rows, skip

    def __len__(self) -> int:
        return len(self._rows) - 1

    def _at(self, i: int) -> str:
        return self._ids[int(self._rows[i + (i >= self._skip)])]


class _Generator:
    def __init__(self, catalog: Catalog, seed: int, id_prefix: str) -> None:
        self.catalog = catalog
        self.rng = random.Random(seed)
        self.id_prefix = id_prefix
        cols = catalog.columns
        #: Row of the i-th item in id order: draws by position are drawn in id order.
        self.by_id: Rows = np.argsort(np.asarray(cols.id_rank), kind="stable")
        self.vocab = Vocabulary(catalog)
        self.pools = Pools(
            genres=catalog.genres(),
            services=catalog.services(),
            languages=sorted(cols.language.keys),
        )
        self.streaming = cols.any_of(cols.services, range(len(cols.services.keys)))
        self._pools: dict[tuple[int | None, ContentRating | None], Rows] = {}
        self.accepted = LeakIndex(catalog)
        if not self.streaming.any():
            raise ValueError(
                "the catalog has no item on a streaming service; no task can be compliant"
            )

    def item(self, row: int) -> Item:
        return self.catalog.items[int(row)]

    def mask(self, constraints: list[Constraint]) -> Mask:
        return constraints_mask(constraints, self.catalog)

    def target_pool(self, persona: Persona) -> Rows:
        """Rows, in id order, of the items on some service that the persona's gate allows."""
        key = (persona.age, persona.maturity_limit)
        pool = self._pools.get(key)
        if pool is None:
            gate = UserContext(age=persona.age, maturity_limit=persona.maturity_limit)
            allowed = self.streaming & gate_mask(self.catalog, gate)
            pool = self._pools[key] = self.by_id[allowed[self.by_id]]
        return pool

    def constraints_around(self, target: Item, k: int, keep: int) -> list[Constraint] | None:
        """k constraints the target satisfies that keep at least `keep` matching items."""
        rng = self.rng
        anchor = anchor_genre(rng, target, self.pools)
        if anchor is None:
            return None
        out, used = [anchor], {"genres"}
        current = constraint_mask(anchor, self.catalog)
        weights = [w for _, w, _ in FAMILIES]
        for _ in range(12 * k):
            if len(out) == k:
                return out
            family, _, group = rng.choices(FAMILIES, weights)[0]
            c = family(rng, target, self.pools)
            if c is None or group in used:
                continue
            narrowed = current & constraint_mask(c, self.catalog)
            if int(narrowed.sum()) >= keep:
                out.append(c)
                used.add(group)
                current = narrowed
        return out if len(out) == k else None

    def near_miss(self, constraints: list[Constraint]) -> Constraint | None:
        """A constraint some item satisfies but no item matching `constraints` does."""
        matches = np.flatnonzero(self.mask(constraints))
        fields = {c.field for c in constraints}
        for _ in range(80):
            other = self.item(self.rng.choice(self.by_id))
            family, _, _ = self.rng.choice(FAMILIES[1:])
            c = family(self.rng, other, self.pools)
            if c is None or c.field in fields:
                continue
            if not constraint_mask(c, self.catalog)[matches].any():
                return c
        return None

    def user(
        self, user_id: str, persona: Persona, must: list[str], avoid: Item, watch: list[str]
    ) -> UserContext:
        rng = self.rng
        extra = rng.sample(self.pools.services, rng.randint(0, min(3, len(self.pools.services))))
        services = list(dict.fromkeys([*must, *extra]))
        skip = int(np.asarray(self.catalog.columns.id_rank)[self.catalog.row(avoid.id)])
        candidates = _IdsWithout(self.catalog.ids, self.by_id, skip)
        extra_watched: list[str] = rng.sample(candidates, rng.randint(0, min(3, len(candidates))))
        history = dict.fromkeys([*watch, *extra_watched])
        entries = [
            WatchEntry(item_id=item_id, rating=rng.choice((None, *[x / 2 for x in range(10, 21)])))
            for item_id in history
        ]
        return UserContext(
            user_id=user_id,
            age=persona.age,
            services=services,
            watch_history=entries,
            maturity_limit=persona.maturity_limit,
        )

    def one(
        self, task_id: str, cell: tuple[Complexity, RevealDifficulty], no_valid: bool
    ) -> RecommendationTask:
        rng = self.rng
        complexity, difficulty = cell
        for _ in range(MAX_ATTEMPTS):
            persona = rng.choice(PERSONAS)
            pool = self.target_pool(persona)
            if not len(pool):
                continue
            target = self.item(rng.choice(pool))
            counts: tuple[int, ...] = _COUNTS[complexity]
            if difficulty is not RevealDifficulty.VOLUNTEER or no_valid:
                counts = tuple(x for x in counts if x >= 2)  # hiding needs a stated anchor
            k = rng.choice(counts)
            want_history = not no_valid and rng.random() < 0.3
            constraints = self.constraints_around(
                target, k - 1 if no_valid else k, 3 if want_history else 2
            )
            if constraints is None:
                continue
            if no_valid:
                miss = self.near_miss(constraints)
                if miss is None:
                    continue
                constraints.insert(rng.randint(1, len(constraints)), miss)
            constraints = [
                c.model_copy(update={"reveal": r})
                for c, r in zip(
                    constraints, _reveals(rng, len(constraints), difficulty), strict=True
                )
            ]
            task = self.assemble(
                task_id, persona, target, constraints, no_valid, want_history, cell
            )
            report = check_task(task, self.catalog, strict=True, vocab=self.vocab)
            if not report.errors and not report.warnings and not self.accepted.leaks(task):
                self.accepted.add(task)
                return task
        raise ValueError(
            f"could not generate a valid {complexity.value}/{difficulty.value} task "
            f"{'with no valid answer ' if no_valid else ''}that no other task gives away "
            f"after {MAX_ATTEMPTS} attempts; the catalog ({len(self.catalog)} items) may be "
            "too small or too uniform"
        )

    def assemble(
        self,
        task_id: str,
        persona: Persona,
        target: Item,
        constraints: list[Constraint],
        no_valid: bool,
        want_history: bool,
        cell: tuple[Complexity, RevealDifficulty],
    ) -> RecommendationTask:
        rng = self.rng
        named = [s for c in constraints if c.field == "streaming_services" for s in c.value]
        answers = self.mask(constraints)
        watch: list[str] = []
        if want_history:
            others = self.by_id[answers[self.by_id]]
            others = others[others != self.catalog.row(target.id)]
            watch = ids_of(self.catalog, np.array([rng.choice(others)])) if len(others) else []
        # The target (or, with no valid answer, any service) keeps the user on the catalog.
        first = self.pools.services if no_valid else target.streaming_services
        must = [rng.choice(first), *named]
        user = self.user(f"u_{task_id}", persona, must, target, watch)
        flags = [PolicyName.RECOMMEND_TOOL]
        if no_valid:
            flags.append(PolicyName.TRANSPARENCY)
        else:
            flags += biting_policies(self.catalog, answers, user)
        if rng.random() < 0.2:
            flags.append(PolicyName.SINGLE_RECOMMENDATION)
        return RecommendationTask(
            id=task_id,
            persona=persona.text,
            constraints=constraints,
            soft_preferences=rng.sample(SOFT_PREFERENCES, rng.randint(0, 3)),
            policy_flags=flags,
            user=user,
            no_valid_recommendation=no_valid,
            complexity=cell[0],
            reveal_difficulty=cell[1],
        )


def generate_tasks(
    catalog: Catalog, n: int, seed: int, id_prefix: str = "gen"
) -> list[RecommendationTask]:
    """n tasks with ids `<id_prefix>_<i>`, equal for equal (catalog content, n, seed, prefix).

    Raises ValueError when the catalog cannot support a cell (too few items that share
    attributes); every returned task passes strict validation with no warnings, and no
    task gives another's answer away.
    """
    if n < 0:
        raise ValueError(f"expected n >= 0, got {n}")
    gen = _Generator(catalog, seed, id_prefix)
    width = max(3, len(str(n - 1)))
    tasks = [
        gen.one(
            f"{id_prefix}_{i:0{width}d}",
            CELLS[i % len(CELLS)],
            i % NO_VALID_EVERY == NO_VALID_EVERY - 1,
        )
        for i in range(n)
    ]
    refuse_leaks(tasks, catalog)
    return tasks
