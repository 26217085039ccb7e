"""PPR suites for tests: ranking episodes played in memory over MCP (the positive placed
at a chosen rank), then mined into a suite folder of kind "ppr" as `evaluator export
--format ppr --suite-out` does."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import Client

from support.ranking import write_ranking_suite
from taurec.evaluator.cli.export import ranking_episodes, write_ppr_suite
from taurec.evaluator.files import find_logs
from taurec.evaluator.logs import Resolver
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite


async def play_rankings(suite: str, log_dir: Path, ranks: list[int | None]) -> None:
    """One ranking episode per task of `suite` (trial 0), the positive at ranks[i % len]
    (None: left out of the list); every list is valid."""
    tasks = load_suite(suite).tasks
    settings = ServerSettings(suite=suite, log_dir=log_dir, run_label="rank")
    async with Client(build_server(settings)) as client:
        for n, task in enumerate(tasks):
            rank = ranks[n % len(ranks)]
            rest = [c for c in task.candidates if c != task.positive]
            ranking = (
                rest[:10] if rank is None else [*rest[: rank - 1], task.positive, *rest[rank - 1 :]]
            )
            started = await client.call_tool(
                "start_episode", {"task_id": task.id, "agent_label": "ranker"}
            )
            episode_id = started.structured_content["episode_id"]
            await client.call_tool(
                "submit_ranking", {"episode_id": episode_id, "ranking": ranking[:10]}
            )


def write_pair_suite(folder: Path, n: int = 6, seed: int = 0) -> Path:
    """A ppr suite mined from `n` ranking episodes (positive at ranks 3, missing, 2, ...);
    returns its folder (folder / "pairs")."""
    suite = str(write_ranking_suite(folder / "ranking", n=n))
    anyio.run(play_rankings, suite, folder / "ranking-logs", [3, None, 2, 1])
    out = folder / "pairs"
    episodes = ranking_episodes(find_logs([folder / "ranking-logs"]), Resolver(suite=suite))
    write_ppr_suite(episodes, seed, out, mining="agenticrec")  # every violating rollout
    return out
