"""The ranking baselines on 2,000 synthetic tasks: the random ranker matches the analytic
values within 95% CIs (family-wise over the five metrics); CF beats popularity, which beats random; the oracle earns 1.1."""

from __future__ import annotations

import math
from statistics import fmean, stdev

import pytest

from taurec.catalog.builders.synthetic_interactions import SyntheticSpec, generate_interactions
from taurec.catalog.store import Catalog
from taurec.clients.agents.ranking.agents import ModelRanker, RandomRanker
from taurec.server.ranking.env import RankingEnv
from taurec.server.ranking.tools import RankingData
from taurec.tasks.ranking.generator import generate_ranking_tasks
from taurec.tasks.ranking.metrics import score_ranking
from taurec.tasks.suite import Suite

N_TASKS = 2000
#: 1 positive among 20 candidates, ranked uniformly at random
ANALYTIC = {"hit@1": 0.05, "hit@5": 0.25, "ndcg@5": 0.1474, "hit@10": 0.5, "ndcg@10": 0.2272}
#: two-sided normal quantile at 0.05 / 5 (Bonferroni): five 95% intervals of one draw would
#: miss one of their values by chance in about one draw of six
Z_FAMILY = 2.5758


@pytest.fixture(scope="module")
def world() -> tuple[Suite, RankingData]:
    catalog = Catalog.load("builtin")
    data = generate_interactions(catalog.items, SyntheticSpec(5500, 55_000, 0))
    # the global split's test part (the last 10% of the time) holds too few users for one
    # task each: up to 4 per user, their histories cut at the first
    tasks = generate_ranking_tasks(data, N_TASKS, seed=0, per_user=4)
    assert len(tasks) == N_TASKS
    suite = Suite(
        id="synthetic", spec="-", description="", catalog=catalog, tasks=tasks, kind="ranking"
    )
    return suite, RankingData.for_tasks(data, tasks, "global")


def _metrics(suite: Suite, rankings: dict[str, list[str]]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for task in suite.tasks:
        for name, value in score_ranking(task, rankings[task.id][:10], 0).metrics().items():
            out.setdefault(name, []).append(value)
    return out


def test_random_ranker_matches_the_analytic_values_within_95_percent_cis(world):
    suite, _ = world
    ranker = RandomRanker(seed=0)
    metrics = _metrics(suite, {t.id: ranker.rank(t.candidates, t.id, 0) for t in suite.tasks})
    for name, expected in ANALYTIC.items():
        values = metrics[name]
        half = Z_FAMILY * stdev(values) / math.sqrt(len(values))
        assert abs(fmean(values) - expected) <= half, (name, fmean(values), expected, half)


def test_cf_beats_popularity_which_beats_random(world):
    suite, rd = world
    means = {}
    for label, ranker in (
        ("random", None),
        ("popularity", ModelRanker(suite, rd, "popularity", use_history=False)),
        ("cf", ModelRanker(suite, rd, "cf", use_history=True)),
    ):
        rank = (
            (lambda t: RandomRanker().rank(t.candidates, t.id, 0))
            if ranker is None
            else (lambda t, r=ranker: r.rank(t.id))
        )
        means[label] = fmean(_metrics(suite, {t.id: rank(t) for t in suite.tasks})["ndcg@10"])
    assert means["cf"] > means["popularity"] + 0.02 > means["random"] + 0.04, means


def test_the_oracle_policy_earns_the_top_reward_on_every_task(world):
    suite, rd = world
    env = RankingEnv(rd)
    rewards = []
    for task in suite.tasks[:200]:
        env.reset(task)
        env.step({"name": "get_user_profile", "arguments": {}})
        ranking = [task.positive, *[c for c in task.candidates if c != task.positive][:9]]
        rewards.append(
            env.step({"name": "submit_ranking", "arguments": {"ranking": ranking}}).reward
        )
    assert fmean(rewards) == pytest.approx(1.1)
