"""Hit@1/5/10 and NDCG@5/10 of the ranking baselines (random, popularity, cf) on each
part of a split, with each part's task count and the share of the records the
collaborative model is trained on.

    python bench/ranking_baselines.py                       # movielens:recbole, global split
    python bench/ranking_baselines.py --scheme per-user --source synthetic --n 2000

MovieLens-100K is read from the recbole wheel (`pip install --no-deps recbole`). After
each part's table, the paired difference cf − popularity per metric (the same tasks)
with a 95% percentile bootstrap interval over tasks (2,000 resamples, seeded): an
interval holding 0 is no evidence that either ranks better on that part.
"""

from __future__ import annotations

import argparse
import time
from statistics import fmean

import numpy as np

from taurec.catalog.interaction_sources import load_interactions
from taurec.catalog.splits import split_parts
from taurec.clients.agents.ranking.agents import ModelRanker, RandomRanker
from taurec.server.ranking.tools import RankingData
from taurec.tasks.ranking.generator import generate_ranking_tasks
from taurec.tasks.ranking.metrics import score_ranking
from taurec.tasks.suite import Suite

METRICS = ("hit@1", "hit@5", "ndcg@5", "hit@10", "ndcg@10")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default="movielens:recbole")
    ap.add_argument("--scheme", default="global", choices=("global", "per-user"))
    ap.add_argument("--n", type=int, default=1000, help="tasks per part at most")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    began = time.perf_counter()
    data = load_interactions(args.source)
    parts = np.bincount(split_parts(data, args.scheme), minlength=3)
    print(
        f"{args.source}: {len(data):,} records, {len(data.user_ids):,} users, "
        f"{len(data.items):,} items; {args.scheme} split train/valid/test records "
        f"{parts[0]:,}/{parts[1]:,}/{parts[2]:,} (read in {time.perf_counter() - began:.1f} s)"
    )
    print(
        f"{'part':6} {'agent':11} {'tasks':>6} {'model sees':>10} "
        + " ".join(f"{m:>8}" for m in METRICS)
    )
    for part in ("train", "valid", "test"):
        tasks = generate_ranking_tasks(data, args.n, args.seed, split=part, scheme=args.scheme)
        suite = Suite(id=part, spec="-", description="", catalog=None, tasks=tasks, kind="ranking")  # type: ignore[arg-type]
        rd = RankingData.for_tasks(data, tasks, args.scheme, part)
        seen = float((data.time < rd.cutoff).mean())
        rankers = {
            "random": lambda t: RandomRanker(seed=args.seed).rank(t.candidates, t.id, 0),
            "popularity": ModelRanker(suite, rd, "popularity", use_history=False).rank,
            "cf": ModelRanker(suite, rd, "cf", use_history=True).rank,
        }
        scored: dict[str, list[dict[str, float]]] = {}
        for label, rank in rankers.items():
            rows = [
                score_ranking(t, (rank(t) if label == "random" else rank(t.id))[:10], 0).metrics()
                for t in tasks
            ]
            scored[label] = rows
            means = " ".join(f"{fmean(r[m] for r in rows):8.4f}" for m in METRICS)
            print(f"{part:6} {label:11} {len(tasks):6d} {seen:10.1%} {means}")
        print(f"{part:6} {'cf - pop':11} {len(tasks):6d} {'':10} " + paired(scored, args.seed))


def paired(scored: dict[str, list[dict[str, float]]], seed: int) -> str:
    """cf − popularity per metric: the mean difference and its 95% bootstrap interval."""
    rng = np.random.default_rng(seed)
    picks = None
    out = []
    for m in METRICS:
        diff = np.array(
            [c[m] - p[m] for c, p in zip(scored["cf"], scored["popularity"], strict=True)]
        )
        if picks is None:
            picks = rng.integers(0, len(diff), size=(2000, len(diff)))
        lo, hi = np.percentile(diff[picks].mean(axis=1), [2.5, 97.5])
        out.append(f"{diff.mean():+.3f} [{lo:+.3f}, {hi:+.3f}]")
    return "  ".join(out)


if __name__ == "__main__":
    main()
