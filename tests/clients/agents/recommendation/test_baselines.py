"""Random and popularity baselines: public tools only, seeded, always commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.recommendation.baselines import PopularityAgent, RandomAgent
from taurec.clients.agents.registry import make_agent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import EpisodeSpec, plan
from taurec.clients.runner.runner import EpisodeResult, Runner
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite

SUITE = load_suite("builtin")
TASKS = [t.id for t in SUITE.tasks[:10]]


async def _run(agent, out: Path, specs: list[EpisodeSpec]) -> list[EpisodeResult]:
    settings = ServerSettings(log_dir=out, run_label="base")
    runner = Runner(agent, Connection("inproc", settings), out, "base", handle_signals=False)
    report = await runner.run(specs)
    return sorted(report.results, key=lambda r: r.spec)


@pytest.mark.slow
async def test_random_commits_a_catalog_title_every_episode_and_is_seeded(tmp_path: Path) -> None:
    specs = plan(TASKS, 2)
    first = await _run(RandomAgent(seed=1), tmp_path / "a", specs)
    again = await _run(RandomAgent(seed=1), tmp_path / "b", specs)
    other = await _run(RandomAgent(seed=2), tmp_path / "c", specs)
    picks = [r.score.item_id for r in first]
    assert all(r.end_reason == "recommended" for r in first)
    assert all(SUITE.catalog.get(i) is not None for i in picks)
    assert picks == [r.score.item_id for r in again]
    assert picks != [r.score.item_id for r in other]


async def test_popularity_commits_the_most_voted_title_of_the_volunteered_genre(
    tmp_path: Path,
) -> None:
    (result,) = await _run(PopularityAgent(), tmp_path, [EpisodeSpec("t001", 0)])  # a Western
    westerns = [it for it in SUITE.catalog.items if "Western" in it.genres]
    best = max(westerns, key=lambda it: (it.vote_count, [-ord(c) for c in it.id]))
    assert result.score.item_id == best.id


async def test_popularity_falls_back_to_the_most_voted_title_overall(tmp_path: Path) -> None:
    opening_without_genre = "t019"  # "Hey. I need something to watch. Can you help?"
    (result,) = await _run(PopularityAgent(), tmp_path, [EpisodeSpec(opening_without_genre, 0)])
    top = max(SUITE.catalog.items, key=lambda it: it.vote_count)
    assert SUITE.catalog.get(result.score.item_id).vote_count == top.vote_count


def test_the_registry_makes_both_baselines_with_their_labels() -> None:
    assert make_agent("random", AgentSettings(seed=3)).label == "random"
    assert make_agent("popularity", AgentSettings(label="pop")).label == "pop"
