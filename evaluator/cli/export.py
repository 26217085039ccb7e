"""Reading ranking logs for `evaluator export` (the formats are in
taurec.evaluator.ranking.export), and writing PPR pairs as a suite folder of kind "ppr"."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from taurec.catalog.collaborative import ItemItemModel
from taurec.catalog.errors import DataError
from taurec.catalog.interaction_sources import load_interactions
from taurec.catalog.interactions import Interactions
from taurec.catalog.splits import scheme_of, train_end
from taurec.catalog.store import BUILTIN
from taurec.evaluator.labels import LabelFilter
from taurec.evaluator.logs import Resolver
from taurec.evaluator.ranking.export import (
    balanced_pairs,
    grpo_groups,
    ppr_pairs,
    ppr_record,
    suite_pairs,
)
from taurec.evaluator.ranking.ppr_rules import RuleReport, rule_report
from taurec.evaluator.ranking.scoring import score_ranking_episode
from taurec.tasks.ranking.pair import PairTask
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.suite import Suite, SuiteManifest, write_suite_dir
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


class ItemCounts:
    """How popular each item was, two ways, in the interaction data of the task's suite:
    its interactions before the task's target time (what item_info_search reports as "N
    reviews"), and the users who took it in the data the suite's collaborative model and
    its popularity baseline train on (records before the earliest target, and before the
    train part's end under the global split)."""

    def __init__(self, episodes: list[Episode], resolver: Resolver) -> None:
        self._data: dict[str, tuple[Interactions, np.ndarray]] = {}
        self._tasks: dict[str, tuple[str, RankingTask]] = {}
        for _, task, trajectory, _ in episodes:
            spec = trajectory.header.suite.spec or trajectory.header.suite.id
            if spec not in self._data:
                self._data[spec] = _counted(resolver.context(spec).suite)
            self._tasks[task.id] = (spec, task)

    def of(self, task: RankingTask, item_id: str) -> tuple[float, float]:
        """(interactions before the task's time, users in the training data)."""
        spec, _ = self._tasks[task.id]
        data, trained = self._data[spec]
        i = data.item_of(item_id)
        return float(len(data.item_records_before(i, task.target_time))), float(trained[i])

    def before(self, task_id: str, item_id: str) -> float:
        return self.of(self._tasks[task_id][1], item_id)[0]

    def trained(self, task_id: str, item_id: str) -> float:
        return self.of(self._tasks[task_id][1], item_id)[1]


def _counted(suite: Suite) -> tuple[Interactions, np.ndarray]:
    data = load_interactions(str(suite.data["interactions"]), suite.catalog)
    cutoff = min(t.target_time for t in suite.tasks if isinstance(t, RankingTask))
    end = train_end(data, scheme_of(suite.data.get("split", "per-user"), "data.split"))
    model = ItemItemModel(data, cutoff if end is None else min(cutoff, end))
    return data, model.popularity


def mined_pairs(
    episodes: list[Episode], seed: int, mining: str, counts: ItemCounts | None
) -> list[PairTask]:
    """The PPR pairs of `episodes`: `balanced` (negatives balanced in popularity, one pair
    per source task) or `agenticrec` (AgenticRec's: a negative from above the positive,
    a pair per violating rollout)."""
    if mining == "agenticrec":
        return list(ppr_pairs(episodes, seed))
    if counts is None:
        raise ValueError("balanced mining needs the items' counts (ItemCounts)")
    return balanced_pairs(episodes, seed, counts.of)


def rules_of(pairs: list[PairTask], counts: ItemCounts) -> RuleReport:
    """The popularity and frequency rules' accuracy on `pairs` (ppr_rules.py)."""
    return rule_report(
        pairs, {"before its time": counts.before, "in the training data": counts.trained}
    )


def export_lines(
    episodes: list[Episode],
    fmt: str,
    seed: int,
    mining: str = "balanced",
    counts: ItemCounts | None = None,
) -> list[dict[str, Any]]:
    if fmt == "grpo":
        return list(grpo_groups(episodes))
    return [ppr_record(pair) for pair in mined_pairs(episodes, seed, mining, counts)]


def write_ppr_suite(
    episodes: list[Episode],
    seed: int,
    folder: Path,
    mining: str = "balanced",
    counts: ItemCounts | None = None,
) -> list[PairTask]:
    """Mine the PPR pairs of the ranking logs in `files` and write them as a suite folder
    of kind "ppr" (suite.json + tasks/), one pair per source task (`suite_pairs`); the
    pair tasks. DataError when no
    rollout yields a pair. The tasks carry their titles, so the suite's catalog (the
    built-in one) is never read by its episodes."""
    pairs: list[PairTask] = suite_pairs(mined_pairs(episodes, seed, mining, counts), seed)
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
    return pairs


def _suite_ids(episodes: list[tuple[str, RankingTask, Trajectory, float]]) -> set[str]:
    return {trajectory.header.suite.id for _, _, trajectory, _ in episodes}


def _suite_id(folder: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.resolve().name).strip("-.")
    return name or "ppr"
