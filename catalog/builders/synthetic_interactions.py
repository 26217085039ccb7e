"""A seeded generator of interactions over any catalog: users with latent tastes.

Each user has a taste over genres (Dirichlet), two favourite directors, a favourite
era, a preferred runtime and a popularity bias. An item's affinity for a user is the
sum of those matches; the user consumes items in sessions, each session centred on one
genre drawn from the taste, choosing items by affinity (Gumbel top-k: no repeats).
Ratings follow the affinity. So a user's history predicts the next item through the
genres, directors and eras it shares with the history, which is what a collaborative
model learns. Time runs from 2022-10-01 over one year, like the paper's data.

Users are drawn in blocks of `BLOCK` from a generator seeded by (seed, block), so a
user's records do not depend on how many users were asked for, and 100k users x 1M
interactions take seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from taurec.catalog.interactions import Interactions, ItemInfo
from taurec.catalog.item import Item

BLOCK = 1000
START = 1_664_582_400  # 2022-10-01T00:00:00Z
YEAR = 365 * 86_400
HOUR = 3600


@dataclass(frozen=True)
class SyntheticSpec:
    users: int = 2000
    interactions: int = 20_000  # in expectation; per-user counts vary
    seed: int = 0


def item_infos(items: list[Item]) -> list[ItemInfo]:
    return [
        ItemInfo(
            id=it.id,
            title=it.title,
            categories=list(it.genres),
            attributes={
                k: v
                for k, v in (
                    ("Director", it.director or ""),
                    ("Year", str(it.release_date.year) if it.release_date else ""),
                )
                if v
            },
        )
        for it in items
    ]


@dataclass(frozen=True)
class _ItemFeatures:
    genre: np.ndarray  # items x genres, 0/1
    director: np.ndarray  # director index per item
    n_directors: int
    era: np.ndarray  # decade index per item
    n_eras: int
    runtime: np.ndarray  # standardised
    popularity: np.ndarray  # standardised log votes


def _features(items: list[Item]) -> _ItemFeatures:
    genres = sorted({g for it in items for g in it.genres})
    gi = {g: k for k, g in enumerate(genres)}
    genre = np.zeros((len(items), max(1, len(genres))), dtype=np.float32)
    for r, it in enumerate(items):
        for g in it.genres:
            genre[r, gi[g]] = 1.0
    directors = {d: k for k, d in enumerate(sorted({it.director or "" for it in items}))}
    director = np.array([directors[it.director or ""] for it in items])
    years = np.array([it.release_date.year if it.release_date else 2000 for it in items])
    era = (years - years.min()) // 10
    runtime = np.array([it.runtime or 100 for it in items], dtype=np.float32)
    votes = np.log1p(np.array([it.vote_count or 0 for it in items], dtype=np.float32))

    def z(x: np.ndarray) -> np.ndarray:
        return (x - x.mean()) / (x.std() or 1.0)

    return _ItemFeatures(
        genre, director, len(directors), era, int(era.max()) + 1, z(runtime), z(votes)
    )


MAX_SESSION = 5


def _block(
    f: _ItemFeatures, n_users: int, mean_len: float, seed: int, block: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(user, item, rating, time) of the first `n_users` users of one block. The whole
    block is drawn (all users step through their sessions together, one round at a time),
    so those users are the same whatever `n_users` is."""
    rng = np.random.default_rng([seed, block])
    n_items, n_genres = f.genre.shape
    taste = rng.dirichlet(np.full(n_genres, 0.15), size=BLOCK).astype(np.float32)
    fav_dir = rng.integers(0, f.n_directors, size=(BLOCK, 2))
    fav_era = rng.integers(0, f.n_eras, size=BLOCK)
    runtime_pref = rng.normal(0, 1, size=BLOCK).astype(np.float32)
    pop_bias = rng.normal(0.2, 0.2, size=BLOCK).astype(np.float32)
    lengths = np.clip(rng.geometric(1.0 / max(mean_len - 2, 1.0), size=BLOCK) + 2, 3, n_items)
    base = (
        1.5 * ((f.director[None, :] == fav_dir[:, :1]) | (f.director[None, :] == fav_dir[:, 1:]))
        + 0.6 * (f.era[None, :] == fav_era[:, None])
        - 0.3 * np.abs(f.runtime[None, :] - runtime_pref[:, None])
        + pop_bias[:, None] * f.popularity[None, :]
    ).astype(np.float32)
    taken = np.zeros((BLOCK, n_items), dtype=bool)
    count = np.zeros(BLOCK, dtype=np.int64)
    clock = START + rng.integers(0, YEAR // 2, size=BLOCK)
    cum_taste = np.cumsum(taste, axis=1)
    users, items, times = [], [], []
    while True:
        active = np.flatnonzero(count < lengths)
        if active.size == 0:
            break
        # the session's genre, its size, and its picks by affinity (Gumbel top-k)
        g = (rng.random(active.size)[:, None] > cum_taste[active]).sum(axis=1)
        g = np.minimum(g, n_genres - 1)
        size = np.minimum(
            rng.integers(2, MAX_SESSION + 1, size=active.size), lengths[active] - count[active]
        )
        score = base[active] + 3.0 * f.genre[:, g].T + rng.gumbel(size=(active.size, n_items))
        score[taken[active]] = -np.inf
        top = np.argpartition(-score, MAX_SESSION - 1, axis=1)[:, :MAX_SESSION]
        top = np.take_along_axis(top, np.argsort(-np.take_along_axis(score, top, 1), 1), 1)
        gaps = rng.integers(60, 1800, size=(active.size, MAX_SESSION))
        gaps[:, 0] = 0
        stamps = clock[active, None] + np.cumsum(gaps, axis=1)
        keep = np.arange(MAX_SESSION)[None, :] < size[:, None]
        rows = np.repeat(active, size)
        users.append(rows)
        items.append(top[keep])
        times.append(stamps[keep])
        taken[rows, top[keep]] = True
        count[active] += size
        last = stamps[np.arange(active.size), size - 1]
        clock[active] = last + rng.exponential(3 * 86_400, size=active.size).astype(np.int64) + HOUR
    user = np.concatenate(users)
    item = np.concatenate(items)
    time = np.concatenate(times)
    affinity = base[user, item] + 3.0 * np.einsum("ij,ij->i", f.genre[item], taste[user])
    affinity += rng.normal(0, 0.5, size=user.size)
    centre = np.zeros(BLOCK)
    order = np.argsort(user, kind="stable")
    bounds = np.searchsorted(user[order], np.arange(BLOCK + 1))
    for u in range(BLOCK):  # each user's median: ratings are relative to their own taste
        seg = affinity[order[bounds[u] : bounds[u + 1]]]
        centre[u] = np.median(seg) if seg.size else 0.0
    rating = np.clip(np.round(3 + affinity - centre[user] + 0.5), 1, 5)
    mine = user < n_users
    return user[mine], item[mine], rating[mine], time[mine]


def generate_interactions(catalog_items: list[Item], spec: SyntheticSpec) -> Interactions:
    """`spec.users` users with about `spec.interactions` records in all, over the items."""
    f = _features(catalog_items)
    mean_len = max(3.0, spec.interactions / max(spec.users, 1))
    cols: list[list[np.ndarray]] = [[], [], [], []]
    for block, start in enumerate(range(0, spec.users, BLOCK)):
        n = min(BLOCK, spec.users - start)
        user, item, rating, time = _block(f, n, mean_len, spec.seed, block)
        for col, chunk in zip(cols, (user + start, item, rating, time), strict=True):
            col.append(chunk)
    width = len(str(max(spec.users - 1, 0)))
    return Interactions.build(
        f"synthetic:users={spec.users},interactions={spec.interactions},seed={spec.seed}",
        item_infos(catalog_items),
        [f"u{u:0{width}d}" for u in range(spec.users)],
        np.concatenate(cols[0]).astype(np.int32),
        np.concatenate(cols[1]).astype(np.int32),
        np.concatenate(cols[2]).astype(np.float32),
        np.concatenate(cols[3]).astype(np.int64),
    )
