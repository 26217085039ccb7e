"""How fast the ranking kind is: every ranking tool on 100k users x 1M interactions after
load, and generating 10,000 ranking tasks from MovieLens-100K-sized data.

    python bench/ranking_speed.py                         # 100k users, 1M interactions
    python bench/ranking_speed.py --users 20000 --interactions 200000   # a quick run

Prints medians and p95s of each tool (ms, over `--calls` tasks) next to the 5 ms target,
the load times (generation, model training), and the task-generation time next to its
10 s target: on MovieLens-100K from the recbole wheel when it is installed, else on a
synthetic set of its size (943 users, 100,000 interactions, 1,682 items).
"""

from __future__ import annotations

import argparse
import statistics
import time

from rich.console import Console
from rich.table import Table

from taurec.catalog.builders.synthetic import generate_items
from taurec.catalog.builders.synthetic_interactions import SyntheticSpec, generate_interactions
from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions
from taurec.catalog.store import Catalog
from taurec.server.ranking.tools import TOOLS, RankingData, run_tool
from taurec.tasks.ranking.generator import generate_ranking_tasks

TOOL_TARGET_MS = 5.0
GENERATE_TARGET_S = 10.0


def _timed(fn, *args, **kw):  # type: ignore[no-untyped-def]
    began = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - began


def _movielens_sized() -> tuple[Interactions, str]:
    try:
        from taurec.catalog.movielens import read_recbole

        return read_recbole(), "MovieLens-100K (recbole)"
    except DataError:
        items = generate_items(1682, seed=0)
        data = generate_interactions(items, SyntheticSpec(943, 100_000, 0))
        return data, "synthetic, MovieLens-100K-sized"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--interactions", type=int, default=1_000_000)
    parser.add_argument("--calls", type=int, default=200, help="tasks to time each tool on")
    args = parser.parse_args()
    console = Console()
    catalog = Catalog.load("builtin")
    data, gen_s = _timed(
        generate_interactions, catalog.items, SyntheticSpec(args.users, args.interactions, 0)
    )
    tasks, task_s = _timed(generate_ranking_tasks, data, args.calls, 0)
    rd, model_s = _timed(RankingData.for_tasks, data, tasks, "global", "test")
    table = Table(
        title=f"ranking tools on {len(data.user_ids):,} users x {len(data):,} interactions"
    )
    for col in ("tool", "median ms", "p95 ms", "target ms"):
        table.add_column(col, justify="left" if col == "tool" else "right")
    for name, (_, arg) in TOOLS.items():
        times = []
        for task in tasks:
            arguments = {arg: rd.data.items[rd.data.item_of(task.history[-1])].title} if arg else {}
            _, seconds = _timed(run_tool, rd, task, name, arguments)
            times.append(seconds * 1000)
        times.sort()
        table.add_row(
            name,
            f"{statistics.median(times):.3f}",
            f"{times[int(0.95 * (len(times) - 1))]:.3f}",
            f"{TOOL_TARGET_MS:g}",
        )
    console.print(table)
    console.print(
        f"load: generate {gen_s:.1f} s, {len(tasks)} tasks {task_s:.2f} s, "
        f"collaborative model {model_s:.2f} s"
    )
    ml, name = _movielens_sized()
    first = min(ml.time)
    made, seconds = _timed(generate_ranking_tasks, ml, 10_000, 0, cutoff=int(first), per_user=10**6)
    console.print(
        f"task generation on {name} ({len(ml):,} interactions): {len(made):,} tasks in "
        f"{seconds:.2f} s (target {GENERATE_TARGET_S:g} s for 10,000; "
        f"{seconds / len(made) * 10_000:.2f} s per 10,000)"
    )


if __name__ == "__main__":
    main()
