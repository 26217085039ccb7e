"""How fast a large catalog is: generate, build the index, load, search and filter.

    python bench/catalog_speed.py                 # 1,000,000 items (folder path), JSON path at 100,000
    python bench/catalog_speed.py 50000           # a quick run
    python bench/catalog_speed.py 1000000 --json-n 100000 --runs 200 --json

Two paths are measured. The folder path: `taurec catalog generate` writes a JSONL catalog,
which is turned into a `.taurec-catalog` folder (columns, sort orders, BM25 matrix, items
by offset; what `taurec catalog build` does, timed in two parts: reading and validating
the JSONL items, and indexing and writing them), and the folder is opened memory-mapped
by `taurec catalog info` (whose time includes the CLI's start-up). Within the indexing
and writing, the search index (tokenising every item and building the BM25 matrix, what
`SearchIndexBuilder` does) is timed on its own: the issue's build target is for it. The JSON path:
the JSONL file is parsed and validated whole, and columns and the BM25 index are built in
memory on first use. The JSON path needs about 9 GB at 1,000,000 items, so it is measured
at `--json-n` items (default 100,000, never more than the folder size) and said so.

Each step runs in its own process, timed from outside (wall clock, start-up included)
with its peak resident memory and CPU time (user + system) read from `os.wait4`'s
rusage; on a shared machine the CPU time shows what the wall time would be unloaded. Search and filter figures
are medians and p90s over `--runs` queries drawn from the catalog (exact titles, title
and overview words, cast names; filters on genre, runtime, rating and service with
varied sorts), after one warm-up query of each. At the JSON size both paths answer the
same queries and the bench checks their answers are identical.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

#: The targets for a 1,000,000-item catalog on a 2-core machine.
TARGETS = {
    "build": {"seconds": 20.0, "rss_mb": 2048.0},
    "load": {"seconds": 5.0, "rss_mb": 1536.0},
    "search": {"seconds": 0.100},
    "filter": {"seconds": 0.050},
}
MB = 1024.0  # ru_maxrss is in KiB on Linux


@dataclass(frozen=True)
class Figure:
    step: str
    path: str
    items: int
    seconds: float
    rss_mb: float | None = None
    p90: float | None = None
    target: str = ""
    verdict: str = ""
    cpu: float | None = None


def timed_child(args: list[str]) -> tuple[float, float, bytes, float]:
    """Run `args`; its wall time, peak RSS (MiB, from its own rusage), stdout and CPU time."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.exit(f"failed ({proc.returncode}): {' '.join(args)}\n{err.decode()[-2000:]}")
    return took, usage.ru_maxrss / MB, out, usage.ru_utime + usage.ru_stime


def taurec(*args: str) -> list[str]:
    return [sys.executable, "-c", "from taurec.clients.cli.main import main; main()", *args]


def verdict(seconds: float, rss_mb: float | None, target: dict[str, float]) -> tuple[str, str]:
    text = f"<= {_fmt(target['seconds'])}"
    ok = seconds <= target["seconds"]
    if "rss_mb" in target:
        text += f", <= {target['rss_mb'] / 1024:.1f} GB"
        ok = ok and rss_mb is not None and rss_mb <= target["rss_mb"]
    return text, "MET" if ok else "NOT MET"


# --- the query process ----------------------------------------------------------------


def queries(spec: str, runs: int, seed: int, build: bool) -> dict[str, Any]:
    """Load `spec`, (build its indexes), then time searches and filters; print JSON."""
    from taurec.catalog.filter import FilterSpec
    from taurec.catalog.store import Catalog
    from taurec.catalog.summary import summary

    start = time.perf_counter()
    cat = Catalog.load(spec)
    if not build:
        summary(cat)  # what `taurec catalog info` does once the catalog is open
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    if build:
        _ = cat.columns, cat.search_index
    indexed = time.perf_counter() - start
    rng = random.Random(seed)
    texts: list[str] = []
    for i in range(runs):
        item = cat.items[rng.randrange(len(cat))]
        if i % 4 == 0:
            texts.append(item.title)
        elif i % 4 == 3 and item.cast:
            texts.append(rng.choice(item.cast))
        else:
            words = (item.title + " " + item.overview).split()
            texts.append(" ".join(rng.sample(words, min(3, len(words)))))
    genres, services = cat.genres(), cat.services()
    specs = [
        FilterSpec(
            genres_any=[rng.choice(genres)],
            runtime_max=rng.choice([90, 110, 130]),
            min_rating=rng.choice([5.5, 6.5, 7.5]),
            services_any=[rng.choice(services)],
            sort=rng.choice(["-popularity", "-rating", "release_date", "title"]),
        )
        for _ in range(runs)
    ]
    digest = hashlib.sha256()
    first_search = _time(lambda: cat.search(texts[0]))
    first_filter = _time(lambda: cat.filter(specs[0]))
    search_times, filter_times = [], []
    for text in texts:
        start = time.perf_counter()
        hits = cat.search(text, limit=10)
        search_times.append(time.perf_counter() - start)
        digest.update(orjson.dumps([h.model_dump() for h in hits]))
    for spec_ in specs:
        start = time.perf_counter()
        page = cat.filter(spec_)
        filter_times.append(time.perf_counter() - start)
        digest.update(page.model_dump_json().encode())
    return {
        "load": loaded,
        "index": indexed,
        "first_search": first_search,
        "first_filter": first_filter,
        "search": _median_p90(search_times),
        "filter": _median_p90(filter_times),
        "answers": digest.hexdigest(),
        "sha256": cat.content_sha256(),  # the item digest: the same on both paths
    }


def build_folder(source: str, out: str) -> dict[str, float]:
    """Write a catalog folder from a JSONL file, timing the reading apart from the rest."""
    import gc

    from taurec.catalog.folder import write_catalog_folder
    from taurec.catalog.io import iter_catalog_file

    spent = {"read": 0.0, "read_cpu": 0.0}

    def timed(items: Iterator[Any]) -> Iterator[Any]:
        while True:
            start, start_cpu = time.perf_counter(), time.process_time()
            item = next(items, None)
            spent["read"] += time.perf_counter() - start
            spent["read_cpu"] += time.process_time() - start_cpu
            if item is None:
                return
            yield item

    from taurec.catalog import folder as folder_module

    spent |= {"search": 0.0, "search_cpu": 0.0}

    def clocked(fn: Any) -> Any:
        def run(*args: Any) -> Any:
            start, start_cpu = time.perf_counter(), time.process_time()
            try:
                return fn(*args)
            finally:
                spent["search"] += time.perf_counter() - start
                spent["search_cpu"] += time.process_time() - start_cpu

        return run

    class SearchIndexTimed(folder_module.SearchIndexBuilder):
        """The writer's search index builder, its tokenising and BM25 matrix timed."""

        add = clocked(folder_module.SearchIndexBuilder.add)
        finish = clocked(folder_module.SearchIndexBuilder.finish)

    folder_module.SearchIndexBuilder = SearchIndexTimed  # type: ignore[misc]
    gc.disable()  # as `taurec catalog build` does: items hold no reference cycles
    start, start_cpu = time.perf_counter(), time.process_time()
    meta, items = iter_catalog_file(source)
    write_catalog_folder(out, meta, timed(items))
    return {
        **spent,
        "total": time.perf_counter() - start,
        "total_cpu": time.process_time() - start_cpu,
    }


def _time(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _median_p90(times: list[float]) -> list[float]:
    times = sorted(times)
    return [statistics.median(times), times[min(len(times) - 1, int(0.9 * len(times)))]]


# --- the driver -----------------------------------------------------------------------


def measure(n: int, json_n: int, runs: int, seed: int, work: Path) -> tuple[list[Figure], str]:
    figures: list[Figure] = []
    me = [sys.executable, __file__]
    sizes = sorted({json_n, n})
    checks: list[str] = []
    for size in sizes:
        jsonl = work / f"cat{size}.jsonl"
        folder = work / f"cat{size}.taurec-catalog"
        took, rss, _, cpu = timed_child(
            taurec(
                "catalog", "generate", "--n", str(size), "--seed", str(seed), "--out", str(jsonl)
            )
        )
        figures.append(Figure("generate (JSONL)", "-", size, took, rss, cpu=cpu))
        took, rss, out, cpu = timed_child([*me, "--build-folder", str(jsonl), str(folder)])
        phases = orjson.loads(out)
        figures.append(Figure("build folder from JSONL", "folder", size, took, rss, cpu=cpu))
        figures.append(
            Figure(
                "  of which read + validate",
                "folder",
                size,
                phases["read"],
                cpu=phases["read_cpu"],
            )
        )
        index = phases["total"] - phases["read"]
        index_cpu = phases["total_cpu"] - phases["read_cpu"]
        figures.append(
            Figure("  of which index + write", "folder", size, index, rss, cpu=index_cpu)
        )
        # The build target is for the search index: tokenising and the BM25 matrix
        # (the process's peak RSS is its upper bound: the whole write stays under it).
        target, ok = verdict(phases["search"], rss, TARGETS["build"]) if size == n else ("", "")
        figures.append(
            Figure(
                "    of which the search index",
                "folder",
                size,
                phases["search"],
                rss,
                None,
                target,
                ok,
                phases["search_cpu"],
            )
        )
        took, rss, _, cpu = timed_child(taurec("catalog", "info", str(folder), "--json"))
        target, ok = verdict(took, rss, TARGETS["load"]) if size == n else ("", "")
        figures.append(
            Figure("catalog info (load)", "folder", size, took, rss, None, target, ok, cpu)
        )
        _, rss, out, _ = timed_child([*me, "--queries", str(folder), "--runs", str(runs)])
        folder_q = orjson.loads(out)
        figures.append(Figure("open + summary, in process", "folder", size, folder_q["load"]))
        figures += _query_figures(folder_q, "folder", size, rss, size == n)
        if size == json_n:
            took, rss, _, cpu = timed_child(taurec("catalog", "info", str(jsonl), "--json"))
            figures.append(Figure("catalog info (load)", "JSON", size, took, rss, cpu=cpu))
            _, rss, out, _ = timed_child(
                [*me, "--queries", str(jsonl), "--runs", str(runs), "--build"]
            )
            json_q = orjson.loads(out)
            figures.append(Figure("parse + validate, in process", "JSON", size, json_q["load"]))
            figures.append(Figure("build index (in memory)", "JSON", size, json_q["index"], rss))
            figures += _query_figures(json_q, "JSON", size, rss, False)
            same = json_q["answers"] == folder_q["answers"]
            same_sha = json_q["sha256"] == folder_q["sha256"]
            checks.append(
                f"{size:,} items: {runs} searches and {runs} filters answer "
                f"{'identically' if same else 'DIFFERENTLY'} on both paths; item sha256 "
                f"{'equal' if same_sha else 'DIFFERS'} ({folder_q['sha256'][:12]})"
            )
        jsonl.unlink()
    return figures, "\n".join(checks)


def _query_figures(
    q: dict[str, Any], path: str, size: int, rss: float, judged: bool
) -> list[Figure]:
    out = []
    for name in ("search", "filter"):
        median, p90 = q[name]
        target, ok = verdict(median, None, TARGETS[name]) if judged else ("", "")
        out.append(Figure(f"{name} (median)", path, size, median, rss, p90, target, ok))
    return out


def show(figures: list[Figure], checks: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="catalog speed (wall clock; peak RSS of the step's process)")
    for col in ("step", "path", "items", "time", "p90", "CPU", "peak RSS", "target", "verdict"):
        table.add_column(col, justify="left" if col in ("step", "path", "target") else "right")
    for f in figures:
        table.add_row(
            f.step,
            f.path,
            f"{f.items:,}",
            _fmt(f.seconds),
            _fmt(f.p90) if f.p90 is not None else "",
            _fmt(f.cpu) if f.cpu is not None else "",
            f"{f.rss_mb:,.0f} MB" if f.rss_mb is not None else "",
            f.target,
            f.verdict,
        )
    console = Console(width=160)
    console.print(table)
    console.print(checks)
    load = os.getloadavg()
    console.print(
        f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
        f"on {os.cpu_count()} cores"
    )


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=1_000_000, help="folder path size")
    parser.add_argument("--n", dest="n_option", type=int, help="the same as N")
    parser.add_argument("--json-n", type=int, default=100_000, help="JSON path size (<= n)")
    parser.add_argument("--runs", type=int, default=200, help="timed searches and filters")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, help="folder for the catalogs (default: a temp dir)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--queries", help=argparse.SUPPRESS)
    parser.add_argument("--build", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--build-folder", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build_folder:
        phases = build_folder(*args.build_folder)
        sys.stdout.write(orjson.dumps(phases).decode() + "\n")
        return 0
    if args.queries:
        result = queries(args.queries, args.runs, args.seed, args.build)
        sys.stdout.write(orjson.dumps(result).decode() + "\n")
        return 0
    if args.n_option is not None:
        args.n = args.n_option
    json_n = min(args.json_n, args.n)
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        figures, checks = measure(args.n, json_n, args.runs, args.seed, Path(tmp))
    if args.json:
        doc = {"figures": [asdict(f) for f in figures], "checks": checks}
        sys.stdout.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        show(figures, checks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
