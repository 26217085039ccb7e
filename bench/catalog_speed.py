"""How fast the catalog is at scale: generate, index, filter and search N synthetic items.

    python bench/catalog_speed.py            # 1,000,000 items (needs ~10 GB of memory)
    python bench/catalog_speed.py --n 50000  # a quick run
    python bench/catalog_speed.py --via-file # also time writing and loading a JSONL file

Prints a table of medians and p90s next to the targets; `--json` prints the same figures
for a program to read.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import orjson
from rich.console import Console
from rich.table import Table

from taurec.catalog.builders.synthetic import generate_items
from taurec.catalog.filter import FilterPage, FilterSpec
from taurec.catalog.io import CatalogMeta, write_catalog_file
from taurec.catalog.store import Catalog

#: Targets for a 1,000,000-item catalog, in seconds.
TARGETS = {"generate": 60.0, "filter": 0.050, "search": 0.100}
T = TypeVar("T")


@dataclass(frozen=True)
class Figure:
    name: str
    seconds_median: float
    seconds_p90: float
    runs: int
    target: float | None = None

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        return "ok" if self.seconds_median <= self.target else "SLOW"


def timed_once(name: str, fn: Callable[[], T], target: float | None = None) -> tuple[Figure, T]:
    """Run `fn` once; its figure and its result."""
    start = time.perf_counter()
    result = fn()
    took = time.perf_counter() - start
    return Figure(name, took, took, 1, target), result


def timed_many(name: str, calls: list[Callable[[], Any]], target: float | None) -> Figure:
    took = []
    for call in calls:
        start = time.perf_counter()
        call()
        took.append(time.perf_counter() - start)
    took.sort()
    p90 = took[min(len(took) - 1, int(0.9 * len(took)))]
    return Figure(name, statistics.median(took), p90, len(took), target)


def filter_specs(cat: Catalog, rng: random.Random, runs: int) -> list[FilterSpec]:
    """Four-predicate specs (genre, runtime, rating, service) of varied selectivity."""
    genres, services = cat.genres(), cat.services()
    return [
        FilterSpec(
            genres_any=[rng.choice(genres)],
            runtime_max=rng.choice([90, 110, 130]),
            min_rating=rng.choice([5.5, 6.5, 7.5]),
            services_any=[rng.choice(services)],
            sort=rng.choice(["-popularity", "-rating", "release_date"]),
        )
        for _ in range(runs)
    ]


def search_queries(cat: Catalog, rng: random.Random, runs: int) -> list[str]:
    """A mix of exact titles, title words and overview words drawn from the catalog."""
    out: list[str] = []
    for i in range(runs):
        item = cat.items[rng.randrange(len(cat))]
        if i % 3 == 0:
            out.append(item.title)
        else:
            words = (item.title + " " + item.overview).split()
            out.append(" ".join(rng.sample(words, min(3, len(words)))))
    return out


def run(n: int, seed: int, runs: int, *, via_file: bool = False) -> list[Figure]:
    figures: list[Figure] = []
    fig, items = timed_once(
        f"generate {n:,} items", partial(generate_items, n, seed), TARGETS["generate"] * n / 1e6
    )
    figures.append(fig)
    if via_file:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.jsonl"
            write = partial(write_catalog_file, path, CatalogMeta(), items)
            figures.append(timed_once("write JSONL file", write)[0])
            del items, write  # the loaded catalog holds its own items; keep one copy in memory
            fig, cat = timed_once("Catalog.load (parse + validate)", partial(Catalog.load, path))
    else:
        fig, cat = timed_once("build Catalog", partial(Catalog.from_items, items))
    figures.append(fig)
    figures.append(timed_once("build columns", lambda: cat.columns)[0])
    figures.append(timed_once("build BM25 index", lambda: cat.search_index)[0])
    rng = random.Random(seed)
    specs = filter_specs(cat, rng, runs)

    # Sort orders are built on first use; warm them so the figure is the steady state.
    def warm() -> list[FilterPage]:
        return [cat.filter(s) for s in specs[:3]]

    figures.append(timed_once("first filter (builds sort orders)", warm)[0])
    figures.append(
        timed_many(
            "filter, 4 predicates", [partial(cat.filter, s) for s in specs], TARGETS["filter"]
        )
    )
    queries = search_queries(cat, rng, runs)
    figures.append(
        timed_many("search", [partial(cat.search, q) for q in queries], TARGETS["search"])
    )
    return figures


def show(figures: list[Figure], n: int) -> None:
    table = Table(title=f"catalog speed, {n:,} synthetic items")
    for col in ("step", "median", "p90", "runs", "target", ""):
        table.add_column(col, justify="left" if col == "step" else "right")
    for f in figures:
        table.add_row(
            f.name,
            _fmt(f.seconds_median),
            _fmt(f.seconds_p90) if f.runs > 1 else "",
            str(f.runs),
            _fmt(f.target) if f.target is not None else "",
            f.verdict,
        )
    Console().print(table)


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="catalog size (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=50, help="timed filter and search calls")
    parser.add_argument(
        "--via-file", action="store_true", help="also time writing and loading a JSONL file"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    figures = run(args.n, args.seed, args.runs, via_file=args.via_file)
    if args.json:
        sys.stdout.write(
            orjson.dumps([asdict(f) for f in figures], option=orjson.OPT_INDENT_2).decode() + "\n"
        )
    else:
        show(figures, args.n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
