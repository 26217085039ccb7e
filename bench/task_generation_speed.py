"""How fast tasks are generated and validated over a big catalog folder.

    python bench/task_generation_speed.py /tmp/c100k.taurec-catalog /tmp/c1m.taurec-catalog
    python bench/task_generation_speed.py /tmp/c100k.taurec-catalog --n 5 30 --runs 3 \\
        --before /work/main/.venv/bin/python --before-n 5 --before-folders 1

Make the folders once with `taurec catalog generate --n 100000 --out /tmp/c100k.taurec-catalog`
(and `--n 1000000`, about a minute and 1.8 GB) and reuse them.

Each measurement runs in its own process and does what `taurec tasks generate` does:
open the catalog folder, `generate_tasks(catalog, n, seed)`, write the suite, load it again
and `validate_suite` it. The wall time is taken inside the process per phase (open,
generate, validate) and its peak resident memory (`ru_maxrss`) read at its end. Figures are
medians over `--runs` processes. `--before PYTHON` times another installation (e.g. the
per-item implementation, which evaluates every constraint with `Constraint.holds` over
every decoded item) on the first `--before-folders` folders and `--before-n` task
counts, where it finishes in reasonable time and memory (at 200,000 items it took 217 s
and 2.1 GB for 5 tasks, so a million items is out of reach), and checks that both
installations generate the same tasks (a digest of the suite's task documents).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHILD = r"""
import hashlib, json, resource, sys, tempfile, time
from pathlib import Path
import orjson
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.generator import generate_tasks
from taurec.tasks.suite import SuiteManifest, load_suite, write_suite_dir
from taurec.tasks.recommendation.validate import validate_suite

folder, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t0 = time.perf_counter()
catalog = Catalog.load(folder)
t1 = time.perf_counter()
tasks = generate_tasks(catalog, n, seed)
t2 = time.perf_counter()
with tempfile.TemporaryDirectory() as tmp:
    out = Path(tmp) / "suite"
    manifest = SuiteManifest(format_version=1, id="bench", catalog=str(Path(folder).resolve()))
    write_suite_dir(out, manifest, tasks)
    report = validate_suite(load_suite(str(out)))
t3 = time.perf_counter()
h = hashlib.sha256()
for t in tasks:
    h.update(orjson.dumps(t.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS))
print(json.dumps({"open": t1 - t0, "generate": t2 - t1, "validate": t3 - t2,
                  "errors": report.n_errors, "tasks": h.hexdigest(),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(python: str, folder: Path, n: int, seed: int, timeout: float) -> dict[str, float | str]:
    """One process: its phases' times, wall time from outside, peak RSS (from inside)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [python, "-c", CHILD, str(folder), str(n), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"timeout": timeout}
    took = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"failed ({proc.returncode}): {python} on {folder}\n{err.decode()[-2000:]}")
    result: dict[str, float | str] = json.loads(out)
    result["wall"] = took
    return result


def run(python: str, folder: Path, n: int, seed: int, runs: int, timeout: float) -> dict:
    results = [measure(python, folder, n, seed, timeout) for _ in range(runs)]
    if any("timeout" in r for r in results):
        return {"timeout": timeout}
    med = {k: statistics.median(float(r[k]) for r in results) for k in results[0] if k != "tasks"}
    med["tasks"] = results[0]["tasks"]
    med["same_tasks_every_run"] = len({r["tasks"] for r in results}) == 1
    return med


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("folders", nargs="+", type=Path, help="catalog folders (.taurec-catalog)")
    ap.add_argument("--n", nargs="+", type=int, default=[5, 30], help="task counts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", type=int, default=3, help="processes per figure (median)")
    ap.add_argument("--before", help="another Python whose taurec to time too")
    ap.add_argument("--before-n", nargs="+", type=int, default=[5])
    ap.add_argument("--before-folders", type=int, default=1)
    ap.add_argument("--before-runs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per process")
    args = ap.parse_args()

    print(
        f"{'catalog':>28} {'n':>3} {'code':>6} {'open s':>7} {'gen s':>8} {'valid s':>8} "
        f"{'total s':>8} {'peak MB':>8}  same tasks"
    )
    for i, folder in enumerate(args.folders):
        for n in args.n:
            after = run(sys.executable, folder, n, args.seed, args.runs, args.timeout)
            _row(folder, n, "after", after, "")
            if args.before and i < args.before_folders and n in args.before_n:
                before = run(args.before, folder, n, args.seed, args.before_runs, args.timeout)
                same = "" if "timeout" in before else str(before["tasks"] == after["tasks"])
                _row(folder, n, "before", before, same)
                if "timeout" not in before:
                    print(
                        f"{'':>28} {n:>3} {'ratio':>6} total {before['wall'] / after['wall']:.0f}x "
                        f"faster, peak memory {before['rss_mb'] / after['rss_mb']:.1f}x smaller"
                    )


def _row(folder: Path, n: int, label: str, r: dict, same: str) -> None:
    if "timeout" in r:
        print(f"{folder.name:>28} {n:>3} {label:>6} timed out after {r['timeout']:.0f} s")
        return
    print(
        f"{folder.name:>28} {n:>3} {label:>6} {r['open']:>7.2f} {r['generate']:>8.2f} "
        f"{r['validate']:>8.2f} {r['wall']:>8.2f} {r['rss_mb']:>8.0f}  {same}"
        + ("" if r["errors"] == 0 else f"  ({r['errors']:.0f} validation errors)")
    )


if __name__ == "__main__":
    main()
