"""Small ranking data for tests: synthetic interactions over the built-in catalog, tasks
generated from them, and a ranking suite folder that names them."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from taurec.catalog.builders.synthetic_interactions import SyntheticSpec, generate_interactions
from taurec.catalog.interactions import Interactions
from taurec.catalog.store import Catalog
from taurec.server.ranking.tools import TOOLS, RankingData, run_tool
from taurec.tasks.ranking.generator import generate_ranking_tasks
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.suite import SuiteManifest, write_suite_dir

SMALL = "synthetic:users=300,interactions=3000,seed=1"


@cache
def small_data() -> Interactions:
    return generate_interactions(Catalog.load("builtin").items, SyntheticSpec(300, 3000, 1))


@cache
def small_tasks() -> tuple[RankingTask, ...]:
    return tuple(generate_ranking_tasks(small_data(), 12, seed=0))


def write_ranking_suite(folder: Path, n: int = 6, split: str = "test") -> Path:
    tasks = (
        small_tasks()
        if split == "test"
        else generate_ranking_tasks(small_data(), n, 0, split=split)
    )
    manifest = SuiteManifest(
        format_version=1,
        id="rank-small",
        kind="ranking",
        data={"interactions": SMALL, "split": "global", "part": split},
    )
    return write_suite_dir(folder, manifest, list(tasks[:n]))


def all_tool_outputs(rd: RankingData, task: RankingTask) -> dict[str, str]:
    """Every tool's output for `task`: the no-argument tools once, the title tools for
    every history item and candidate."""
    out = {}
    for name, (_, arg) in TOOLS.items():
        if arg is None:
            out[name] = run_tool(rd, task, name, {})
        else:
            for item in [*task.history, *task.candidates]:
                title = rd.data.items[rd.data.item_of(item)].title
                out[f"{name}:{item}"] = run_tool(rd, task, name, {arg: title})
    return out
