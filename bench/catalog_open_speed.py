"""How long opening a catalog folder takes, verified: the digest a plan pins included.

    python bench/catalog_open_speed.py                           # generates 300,000 items
    python bench/catalog_open_speed.py --catalog big.taurec-catalog --runs 5
    python bench/catalog_open_speed.py --catalog big.taurec-catalog --rebuild

Opening a folder (`Catalog.load`) checks every file against its manifest and recomputes
the catalog's digest (`docs/catalog.md`, "A damaged or edited folder"). The bench opens
the folder once to warm the page cache, then `--runs` times in this process, and prints
the median, fastest and slowest open, each followed by `Catalog.sha256()` (the digest
plans pin), then the median time of that digest alone (SHA-256 of the checked manifest,
`folder_sha256`) and the digests themselves. Run it on an older checkout (`PYTHONPATH`
pointing at a copy of the package) for the figures before.

`--rebuild` also times the other way to vouch for the indexes: building them again from
the items (decoding every item, the columns and sort orders, the BM25 matrix and the
title index) once, which is what checking each index against the items at open would
cost at the least.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from taurec.catalog.store import Catalog


def generate(n: int, out: Path) -> Path:
    taurec = Path(sys.executable).parent / "taurec"
    cmd = [str(taurec), "catalog", "generate", "--n", str(n), "--seed", "7", "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def open_times(folder: Path, runs: int) -> tuple[list[float], str, str]:
    """Seconds per verified open (digest included), after one warm-up open."""
    Catalog.load(folder).sha256()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        cat = Catalog.load(folder)
        pinned = cat.sha256()
        times.append(time.perf_counter() - start)
    content = getattr(cat, "content_sha256", cat.sha256)()
    return times, pinned, content


def digest_seconds(folder: Path, runs: int) -> float | None:
    """Median seconds `folder_sha256` takes over the manifest (None before it existed)."""
    try:
        from taurec.catalog.manifest import folder_sha256, read_manifest
    except ImportError:
        return None
    manifest = read_manifest(folder)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        folder_sha256(manifest, manifest.files)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rebuild_seconds(folder: Path) -> dict[str, float]:
    """Seconds to build every index again from the folder's items."""
    from taurec.catalog.columns import Columns
    from taurec.catalog.search import SearchIndex
    from taurec.catalog.title_index import TitledRecord, TitleIndexBuilder

    cat = Catalog.load(folder)
    took: dict[str, float] = {}
    start = time.perf_counter()
    items = list(cat.items)
    took["decode items"] = time.perf_counter() - start
    start = time.perf_counter()
    columns = Columns.of(items)
    columns.all_orders()
    took["columns and sort orders"] = time.perf_counter() - start
    start = time.perf_counter()
    SearchIndex.build(items, columns)
    took["BM25 matrix"] = time.perf_counter() - start
    start = time.perf_counter()
    titles = TitleIndexBuilder()
    with open(folder / "items.jsonl", "rb") as fh:
        titles.add([TitledRecord.of_line(line) for line in fh])
    took["title index"] = time.perf_counter() - start
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", type=Path, help="a catalog folder (default: generate one)")
    parser.add_argument("--n", type=int, default=300_000, help="items to generate")
    parser.add_argument("--runs", type=int, default=5, help="timed opens")
    parser.add_argument("--rebuild", action="store_true", help="time rebuilding the indexes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.catalog or generate(args.n, Path(tmp) / "bench.taurec-catalog")
        times, pinned, content = open_times(folder, args.runs)
        n = len(Catalog.load(folder))
        print(f"{folder}: {n:,} items")
        print(
            f"open, verified, digest included: median {statistics.median(times):.3f} s "
            f"(fastest {min(times):.3f} s, slowest {max(times):.3f} s, {args.runs} runs)"
        )
        digest = digest_seconds(folder, args.runs)
        if digest is not None:
            print(f"of which the folder digest over the checked manifest: {digest * 1e3:.3f} ms")
        print(f"pinned digest (Catalog.sha256) {pinned}")
        print(f"item digest                    {content}")
        if args.rebuild:
            took = rebuild_seconds(folder)
            for step, seconds in took.items():
                print(f"rebuild from the items: {step}: {seconds:.2f} s")
            print(f"rebuild from the items, in all: {sum(took.values()):.2f} s")


if __name__ == "__main__":
    main()
