"""Reading ranking logs for `evaluator export` (the formats are in
taurec.evaluator.ranking.export), and writing PPR pairs as a suite folder of kind "ppr"."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taurec.catalog.errors import DataError
from taurec.catalog.store import BUILTIN
from taurec.evaluator.labels import LabelFilter
from taurec.evaluator.logs import Resolver
from taurec.evaluator.ranking.export import grpo_groups, ppr_pairs, ppr_record, suite_pairs
from taurec.evaluator.ranking.scoring import score_ranking_episode
from taurec.tasks.ranking.pair import PairTask
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.suite import SuiteManifest, write_suite_dir
from taurec.tasks.trajectory.format import Trajectory
from taurec.tasks.trajectory.reader import read_log


@dataclass
class Passed:
    """What `ranking_episodes` read and passed over: the logs of episodes that have not
    ended (a live run, or an episode left open), the logs of other kinds by kind, and
    those of labels `chosen` leaves out; `labels` has the agent label of every log read."""

    chosen: LabelFilter = field(default_factory=LabelFilter)
    unfinished: list[Path] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    labels: set[str] = field(default_factory=set)


def ranking_episodes(
    files: list[Path], resolver: Resolver, passed: Passed | None = None
) -> list[tuple[str, RankingTask, Trajectory, float]]:
    """(label, task, trajectory, reward) of every complete ranking log; DataError naming
    the first log that is not one. With `passed`, unfinished logs and logs of another
    kind are noted there and skipped instead."""
    out = []
    for path in files:
        log = read_log(path)
        if passed is not None and log.unfinished:
            passed.unfinished.append(path)
            continue
        if log.header is None or log.problems:
            raise DataError(
                f"cannot be read: {log.problems[0] if log.problems else 'no header'}", source=path
            )
        if passed is not None:
            passed.labels.add(log.header.agent.label)
            if not passed.chosen.matches(log.header.agent.label):
                continue
            if log.header.kind != "ranking":
                passed.kinds[log.header.kind] += 1
                continue
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


Episode = tuple[str, RankingTask, Trajectory, float]


def export_resolver(paths: list[Path], suite: str | None) -> tuple[Resolver, list[Path]]:
    """The resolver `evaluator score` would use for `paths` (a shipped suite, `suite`, or
    the suite of a run plan found there) and the logs under them."""
    from taurec.evaluator.evaluate import available_key
    from taurec.evaluator.files import find_run_files
    from taurec.evaluator.sealed import plan_specs, read_registers

    files = find_run_files(paths)
    registers, _ = read_registers(files.registers, available_key())  # score reports these
    return Resolver(suite=suite, allowed_specs=plan_specs(registers)), files.logs


def not_for_training(episodes: list[Episode], resolver: Resolver) -> list[str]:
    """The suites of these episodes whose tasks are not from a train part (`data.part`; a
    suite without one predates the split option and drew its tasks from the test part):
    training data mined from them is training on the evaluation set."""
    out = set()
    for spec in {
        trajectory.header.suite.spec or trajectory.header.suite.id for *_, trajectory, _ in episodes
    }:
        suite = resolver.context(spec).suite
        part = suite.data.get("part", "test")
        if part != "train":
            out.add(f"{suite.id} ({part} part)")
    return sorted(out)


def export_lines(episodes: list[Episode], fmt: str, seed: int) -> list[dict[str, Any]]:
    if fmt == "grpo":
        return list(grpo_groups(episodes))
    return [ppr_record(pair) for pair in ppr_pairs(episodes, seed)]


def write_ppr_suite(episodes: list[Episode], seed: int, folder: Path) -> int:
    """Mine the PPR pairs of the ranking logs in `files` and write them as a suite folder
    of kind "ppr" (suite.json + tasks/), one pair per source task (`suite_pairs`); the
    number of pair tasks. DataError when no
    rollout yields a pair. The tasks carry their titles, so the suite's catalog (the
    built-in one) is never read by its episodes."""
    pairs: list[PairTask] = suite_pairs(list(ppr_pairs(episodes, seed)), seed)
    if not pairs:
        raise DataError(
            f"no PPR pairs in {len(episodes)} ranking episodes: a pair needs a valid ranking "
            "(10 distinct candidates within the tool budget) whose positive is not first",
            source=folder,
        )
    sources = sorted(_suite_ids(episodes))
    manifest = SuiteManifest(
        format_version=1,
        id=_suite_id(folder),
        catalog=BUILTIN,
        kind="ppr",
        description=f"AgenticRec PPR pairs mined (seed {seed}) from {len(episodes)} ranking "
        f"episodes of suite {', '.join(sources)}",
    )
    write_suite_dir(folder, manifest, pairs)
    return len(pairs)


def _suite_ids(episodes: list[tuple[str, RankingTask, Trajectory, float]]) -> set[str]:
    return {trajectory.header.suite.id for _, _, trajectory, _ in episodes}


def _suite_id(folder: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.resolve().name).strip("-.")
    return name or "ppr"
