"""A seeded generator of fictional movie catalogs with realistic joint distributions.

Every random column is drawn with numpy, one block of `BLOCK_SIZE` items at a time,
from a generator seeded by (seed, block index); strings are then assembled from the
word banks in `vocabulary` and `plots` by index. So a block's values never depend on
how many items were asked for, which is what makes prefixes stable (see
`generate_items`), and a million items take seconds, not minutes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

import numpy as np

from taurec.catalog.builders.distributions import (
    CONTENT_RATINGS,
    FIRST_RELEASE,
    GENRE_PROFILES,
    LANGUAGES,
    LAST_RELEASE,
    PROLIFIC_DIRECTORS_PER_GENRE,
    PROLIFIC_SHARE,
    SERVICE_COUNT_P,
    SERVICES,
    SNAPSHOT_DATE,
    SPONSORED_P,
    STAR_POOL,
    STAR_SHARE,
)
from taurec.catalog.builders.plots import PLOTS
from taurec.catalog.builders.titles import Titler
from taurec.catalog.builders.vocabulary import (
    FIRST_NAMES,
    GENRES,
    KEYWORDS,
    OCCUPATIONS,
    PLACES,
    SURNAMES,
)
from taurec.catalog.io import CatalogMeta
from taurec.catalog.item import Item

BLOCK_SIZE = 4096
#: Items per cast/director "generation": recurring people are drawn afresh per group.
PEOPLE_GROUP = 4 * BLOCK_SIZE

_G = len(GENRES)
_GI = {g: i for i, g in enumerate(GENRES)}
_PRIMARY_P = np.array([GENRE_PROFILES[g].weight for g in GENRES])
_PRIMARY_P /= _PRIMARY_P.sum()
_PARTNERS = np.array([[GENRE_PROFILES[g].partners.get(h, 0.0) for h in GENRES] for g in GENRES])
_SIZES = np.cumsum([GENRE_PROFILES[g].sizes for g in GENRES], axis=1)
_RUN_MEAN = np.array([GENRE_PROFILES[g].runtime[0] for g in GENRES])
_RUN_SD = np.array([GENRE_PROFILES[g].runtime[1] for g in GENRES])
_OFFSET = np.array([GENRE_PROFILES[g].rating_offset for g in GENRES])
_OFFSET -= float(_PRIMARY_P @ _OFFSET)  # keep the overall mean at 6.3
_LOG_CR = np.log(np.array([GENRE_PROFILES[g].ratings for g in GENRES]) + 1e-4)
# A co-genre's pull on the content rating; family genres pull hardest.
_CO_WEIGHT = np.array([1.2 if g in ("Animation", "Family") else 0.6 for g in GENRES])
_LANG_CODES = tuple(code for code, _ in LANGUAGES)
_LANG_P = np.array([p for _, p in LANGUAGES])
_SERVICE_NAMES = tuple(name for name, _ in SERVICES)
_SERVICE_W = np.array([w for _, w in SERVICES])
_SI = {name: i for i, name in enumerate(_SERVICE_NAMES)}
_EPOCH = FIRST_RELEASE.toordinal()
_SPAN = LAST_RELEASE.toordinal() - _EPOCH
_DICE = 20  # random integers per item for picking words


def _row_choice(weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """One index per row of `weights` (rows need not sum to 1), using uniforms `u`."""
    c = np.cumsum(weights, axis=1)
    c /= c[:, -1:]
    return np.minimum((u[:, None] > c).sum(axis=1), weights.shape[1] - 1)


@dataclass
class _Block:
    """The numeric columns of one block; strings are built from them later."""

    genres: np.ndarray  # (B, 3) genre indices, -1 where absent
    lang: np.ndarray
    day: np.ndarray
    runtime: np.ndarray
    rating: np.ndarray
    votes: np.ndarray
    content: np.ndarray
    services: np.ndarray  # (B, 3) service indices, -1 where absent
    sponsored: np.ndarray
    prolific: np.ndarray  # bool: director from the recurring pool
    stars: np.ndarray  # (B, 6) bool: cast slot from the star pool
    n_cast: np.ndarray
    n_keywords: np.ndarray
    dice: np.ndarray  # (B, _DICE) non-negative ints for word choices


def _draw_block(seed: int, block: int) -> _Block:
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, block)))
    b = BLOCK_SIZE
    rows = np.arange(b)
    first = rng.choice(_G, size=b, p=_PRIMARY_P)
    size = (rng.random(b)[:, None] > _SIZES[first]).sum(axis=1) + 1
    w2 = _PARTNERS[first].copy()
    second = _row_choice(w2, rng.random(b))
    w3 = _PARTNERS[first] + 0.5 * _PARTNERS[second]
    w3[rows, first] = 0.0
    w3[rows, second] = 0.0
    w3[w3.sum(axis=1) == 0, 0] = 1.0  # guard only: every profile has >= 4 partners
    third = _row_choice(w3, rng.random(b))
    genres = np.stack([first, np.where(size >= 2, second, -1), np.where(size >= 3, third, -1)], 1)
    has = np.zeros((b, _G), dtype=bool)
    for col in range(3):
        ok = genres[:, col] >= 0
        has[rows[ok], genres[ok, col]] = True
    is_ = {g: has[:, _GI[g]] for g in ("Animation", "Family", "Horror", "Drama", "Documentary")}

    lang_w = np.tile(_LANG_P, (b, 1))
    lang_w[is_["Animation"], _LANG_CODES.index("ja")] *= 10
    lang_w[is_["Documentary"] | is_["Drama"], 1:] *= 1.6
    lang = _row_choice(lang_w, rng.random(b))
    english = lang == 0

    # Release dates: Beta(1, 2.3) ages put the mean around 2009 and the mode at the end.
    age_days = np.floor(rng.beta(1.0, 2.3, b) * _SPAN).astype(np.int64)
    day = _SPAN - age_days
    age_years = age_days / 365.25
    year = FIRST_RELEASE.year + (day / 365.25)

    co = has.copy()
    co[rows, first] = False
    n_co = co.sum(axis=1)
    co_mean = np.where(n_co > 0, (co * _RUN_MEAN).sum(axis=1) / np.maximum(n_co, 1), 0.0)
    mean = np.where(n_co > 0, 0.7 * _RUN_MEAN[first] + 0.3 * co_mean, _RUN_MEAN[first])
    kids = is_["Animation"] | (is_["Family"] & ~is_["Horror"])
    mean = np.where(kids, np.minimum(mean, 96.0), mean)
    runtime = rng.normal(mean, _RUN_SD[first])
    epic_genres = [_GI[g] for g in ("History", "War", "Adventure", "Fantasy", "Science Fiction")]
    epic = has[:, epic_genres].any(axis=1) | (first == _GI["Drama"])
    runtime += np.where(epic & (rng.random(b) < 0.06), rng.exponential(28.0, b), 0.0)
    runtime = np.where(kids, np.clip(runtime, 70, 118), np.clip(runtime, 68, 215))
    runtime = np.rint(runtime).astype(np.int64)

    co_off = np.where(n_co > 0, (co * _OFFSET).sum(axis=1) / np.maximum(n_co, 1), 0.0)
    score = 6.3 + _OFFSET[first] + 0.4 * co_off + rng.normal(0.0, 0.85, b)
    rating = np.round(np.clip(score, 1.5, 9.4), 1)

    f_age = 0.8 * np.log1p(2.0 * age_years) - 0.04 * np.maximum(0.0, age_years - 20.0)
    log_votes = 4.0 + 0.8 * f_age + 0.6 * (rating - 6.3) + 0.3 * english + rng.normal(0.0, 1.15, b)
    votes = np.clip(np.floor(np.exp(log_votes)), 1, 45_000).astype(np.int64)

    # Content rating: product of the genres' rating distributions (first genre counts most).
    logits = _LOG_CR[first] + ((co * _CO_WEIGHT)[:, :, None] * _LOG_CR[None]).sum(axis=1)
    logits[:, 5] += np.where(english, 0.0, 1.2) + np.where(year < 1985, 0.4, 0.0)
    content = np.argmax(logits + rng.gumbel(size=(b, 6)), axis=1)

    # Services: Gumbel top-k over per-title weights, k ~ SERVICE_COUNT_P.
    sw = np.tile(_SERVICE_W, (b, 1))
    family_ok = (is_["Family"] | is_["Animation"]) & (content <= 2)
    sw[:, _SI["Disney+"]] *= np.where(family_ok, 10.0, np.where(content >= 3, 0.05, 1.0))
    sw[:, _SI["Shudder"]] *= np.where(is_["Horror"], 60.0, 1.0)
    sw[:, _SI["Crunchyroll"]] *= np.where(
        is_["Animation"] & (lang == _LANG_CODES.index("ja")), 500.0, 1.0
    )
    sw[:, _SI["MUBI"]] *= np.where(english, 1.0, 5.0)
    sw[:, _SI["Criterion Channel"]] *= np.where(year < 1995, 5.0, 1.0)
    sw[:, _SI["Angel Studios"]] *= np.where(family_ok, 15.0, 1.0)
    n_services = (rng.random(b)[:, None] > np.cumsum(SERVICE_COUNT_P)).sum(axis=1)
    keys = np.log(sw) + rng.gumbel(size=sw.shape)
    best = np.argsort(-keys, axis=1)[:, :3]
    services = np.full((b, 3), -1, dtype=np.int64)
    for k in (1, 2, 3):
        sel = n_services == k
        # listed in table order (most common service first), not in draw order
        services[sel, :k] = np.sort(best[sel, :k], axis=1)

    sponsored = rng.random(b) < np.where(year >= 2015, SPONSORED_P[1], SPONSORED_P[0])
    prolific = rng.random(b) < PROLIFIC_SHARE
    stars = rng.random((b, 6)) < STAR_SHARE
    doc = is_["Documentary"] & (first == _GI["Documentary"])
    n_cast = np.where(doc, rng.integers(0, 3, b), rng.integers(3, 6, b))
    n_keywords = rng.integers(3, 7, b)
    dice = rng.integers(0, 2**31 - 1, size=(b, _DICE), dtype=np.int64)
    return _Block(
        genres, lang, day, runtime, rating, votes, content, services, sponsored,
        prolific, stars, n_cast, n_keywords, dice,
    )  # fmt: skip


@dataclass(frozen=True)
class _People:
    """The recurring directors (per genre) and actors of one group of items."""

    directors: tuple[tuple[str, ...], ...]  # by genre index
    stars: tuple[str, ...]


def _draw_people(seed: int, group: int) -> _People:
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, group)))
    total = sum(PROLIFIC_DIRECTORS_PER_GENRE) + STAR_POOL
    combos = rng.choice(len(FIRST_NAMES) * len(SURNAMES), size=total, replace=False).tolist()
    names = [f"{FIRST_NAMES[c // len(SURNAMES)]} {SURNAMES[c % len(SURNAMES)]}" for c in combos]
    directors: list[tuple[str, ...]] = []
    at = 0
    for count in PROLIFIC_DIRECTORS_PER_GENRE:
        directors.append(tuple(names[at : at + count]))
        at += count
    return _People(tuple(directors), tuple(names[at:]))


def _name(d: int) -> str:
    return f"{FIRST_NAMES[d % len(FIRST_NAMES)]} {SURNAMES[(d // 997) % len(SURNAMES)]}"


def _overview(genres: list[str], d: list[int]) -> tuple[str, str]:
    """An overview for the genres, and the hero's first name (titles may use it)."""
    first, turn_genre = genres[0], genres[1] if len(genres) > 1 else genres[0]
    bank, turn_bank = PLOTS[first], PLOTS[turn_genre]
    jobs = OCCUPATIONS.get(first, OCCUPATIONS["any"])
    if first not in ("Animation", "Family") and d[5] % 2:
        jobs = OCCUPATIONS["any"]
    hero = _name(d[6])
    hero_first = hero.split(" ", 1)[0]
    other = FIRST_NAMES[d[7] % len(FIRST_NAMES)]
    if other == hero_first:
        other = FIRST_NAMES[(d[7] + 1) % len(FIRST_NAMES)]
    job = jobs[d[8] % len(jobs)]
    article = "an" if job[0] in "aeiouAEIOU" else "a"
    slots = {
        "hero": hero,
        "first": hero_first,
        "job": job,
        "a_job": f"{article} {job}",
        "A_job": f"{article.capitalize()} {job}",
        "place": PLACES[d[9] % len(PLACES)],
        "other": other,
    }
    template = (
        f"{bank.setups[d[10] % len(bank.setups)]} "
        f"{turn_bank.turns[d[11] % len(turn_bank.turns)]} "
        f"{bank.stakes[d[12] % len(bank.stakes)]}"
    )
    text = template.format_map(slots)
    return text[0].upper() + text[1:], hero_first


def _keywords(genres: list[str], k: int, d: list[int]) -> list[str]:
    out: list[str] = []
    for j in range(k):
        roll = d[13 + j]  # k <= 6, so dice 13..18
        genre = (
            genres[0]
            if roll % 10 < 6 or len(genres) == 1
            else genres[1 + (roll // 10) % (len(genres) - 1)]
        )
        bank = KEYWORDS[genre]
        word = bank[(roll // 100) % len(bank)]
        if word not in out:
            out.append(word)
    return out


def _block_items(
    seed: int, block: int, count: int, width: int, people: _People, titler: Titler
) -> Iterator[Item]:
    cols = _draw_block(seed, block)
    genres_l = cols.genres.tolist()
    lang_l, day_l = cols.lang.tolist(), cols.day.tolist()
    run_l, rating_l, votes_l = cols.runtime.tolist(), cols.rating.tolist(), cols.votes.tolist()
    content_l, services_l = cols.content.tolist(), cols.services.tolist()
    sponsored_l, prolific_l, stars_l = (
        cols.sponsored.tolist(),
        cols.prolific.tolist(),
        cols.stars.tolist(),
    )
    n_cast_l, n_kw_l, dice_l = cols.n_cast.tolist(), cols.n_keywords.tolist(), cols.dice.tolist()
    base = block * BLOCK_SIZE + 1
    for i in range(count):
        d = dice_l[i]
        genres = [GENRES[g] for g in genres_l[i] if g >= 0]
        overview, hero_first = _overview(genres, d)
        pool = people.directors[genres_l[i][0]]
        director = pool[d[14] % len(pool)] if prolific_l[i] and pool else _name(d[15])
        cast: list[str] = []
        for slot in range(n_cast_l[i]):
            roll = d[16 + slot % 4] // (slot + 1)
            name = people.stars[roll % STAR_POOL] if stars_l[i][slot] else _name(roll // 3)
            if name not in cast and name != director:
                cast.append(name)
        yield Item.model_construct(
            id=f"syn_{base + i:0{width}d}",
            title=titler.title(GENRE_PROFILES[genres[0]].mood, d, hero_first),
            release_date=date.fromordinal(_EPOCH + day_l[i]),
            runtime=run_l[i],
            genres=genres,
            overview=overview,
            cast=cast,
            director=director,
            rating=rating_l[i],
            vote_count=votes_l[i],
            streaming_services=[_SERVICE_NAMES[s] for s in services_l[i] if s >= 0],
            sponsored=sponsored_l[i],
            content_rating=CONTENT_RATINGS[content_l[i]],
            original_language=_LANG_CODES[lang_l[i]],
            keywords=_keywords(genres, n_kw_l[i], d),
        )


def id_width(n: int) -> int:
    """Digits in a `syn_` id for an n-item catalog: 6, or more when n needs them."""
    return max(6, len(str(n)))


def iter_items(n: int, seed: int = 0) -> Iterator[Item]:
    """`generate_items` as a stream, for writing catalogs too large to hold twice."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    width = id_width(n)
    titler = Titler()
    people: _People | None = None
    for block in range((n + BLOCK_SIZE - 1) // BLOCK_SIZE):
        if block % (PEOPLE_GROUP // BLOCK_SIZE) == 0:
            people = _draw_people(seed, block * BLOCK_SIZE // PEOPLE_GROUP)
        assert people is not None
        count = min(BLOCK_SIZE, n - block * BLOCK_SIZE)
        yield from _block_items(seed, block, count, width, people, titler)


def generate_items(n: int, seed: int = 0) -> list[Item]:
    """`n` fictional, never-released titles; the same (n, seed) always gives the same items.

    Prefix-stable: the first k items of an n-item run equal a k-item run with the same
    seed, as long as both use the same id width (`id_width`: 6 digits up to 999,999
    items). Items are built with `model_construct` from values that already have the
    validated types (canonical service names, `date`, `ContentRating`).
    """
    # Items hold no reference cycles; pausing the cyclic GC halves the time for 1M items.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return list(iter_items(n, seed))
    finally:
        if was_enabled:
            gc.enable()


def synthetic_meta(n: int, seed: int, name: str = "synthetic") -> CatalogMeta:
    """The meta a generated catalog records: enough for `taurec catalog generate` to rebuild it."""
    return CatalogMeta(
        name=name,
        source="synthetic",
        seed=seed,
        snapshot_date=SNAPSHOT_DATE,
        description=(
            f"{n} fictional, never-released titles from taurec's synthetic generator "
            f"(seed {seed}); people, places and titles are invented."
        ),
    )
