"""Reading ranking logs for `evaluator export` (the formats are in taurec.evaluator.ranking.export)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taurec.catalog.errors import DataError
from taurec.evaluator.logs import Resolver
from taurec.evaluator.ranking.export import grpo_groups, ppr_pairs
from taurec.evaluator.ranking.scoring import score_ranking_episode
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.trajectory.format import Trajectory
from taurec.tasks.trajectory.reader import read_log


def ranking_episodes(
    files: list[Path], resolver: Resolver
) -> list[tuple[str, RankingTask, Trajectory, float]]:
    """(label, task, trajectory, reward) of every complete ranking log; DataError naming
    the first log that is not one."""
    out = []
    for path in files:
        log = read_log(path)
        if log.header is None or log.problems:
            raise DataError(
                f"cannot be read: {log.problems[0] if log.problems else 'no header'}", source=path
            )
        if log.header.kind != "ranking":
            raise DataError(f"is a {log.header.kind!r} episode; expected ranking logs", source=path)
        task = resolver.context(log.header.suite.spec or log.header.suite.id).suite.get(
            log.header.task_id
        )
        if not isinstance(task, RankingTask):
            raise DataError(f"task {log.header.task_id!r} is not in its suite", source=path)
        if task.sha256() != log.header.task_sha256:
            raise DataError(
                f"task {task.id!r} differs from the task as run (sha256 mismatch); the suite "
                "changed",
                source=path,
            )
        trajectory = Trajectory(header=log.header, events=log.events)
        score = score_ranking_episode(task, trajectory, str(path))
        out.append((log.header.agent.label, task, trajectory, score.reward))
    return out


def export_lines(
    files: list[Path], fmt: str, resolver: Resolver, seed: int
) -> list[dict[str, Any]]:
    episodes = ranking_episodes(files, resolver)
    if fmt == "grpo":
        return list(grpo_groups(episodes))
    return list(ppr_pairs(episodes, seed))
