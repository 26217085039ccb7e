"""The test suite's wall time, on a quiet machine and under CPU load.

Runs `python -m pytest -q` (the README's command: parallel by default) and, for comparison,
the same in one process (`-n0`), each once quiet and once while LOAD busy-looping
processes burn CPU (a loaded machine shared with others). Prints the wall times and the
outcome line of each run. Target: <= 4 min on 2 cores under load, and no failure that only
load causes.

    python bench/suite_time.py                      # the whole suite, 4 runs
    python bench/suite_time.py --load 2 --only parallel -- tests/evaluator
"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.table import Table

MODES = {"parallel": [], "one process": ["-n0"]}


def _burn() -> None:
    while True:
        pass


@contextmanager
def cpu_load(processes: int) -> Iterator[None]:
    """`processes` busy loops for the duration (none when 0)."""
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(processes)]
    for b in burners:
        b.start()
    try:
        yield
    finally:
        for b in burners:
            b.terminate()
            b.join()


def run_suite(extra: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
        capture_output=True,
        text=True,
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return time.perf_counter() - t0, lines[-1] if lines else done.stderr.strip()[-200:]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--load", type=int, default=2, help="CPU-burning processes (default 2)")
    ap.add_argument("--only", choices=sorted(MODES), help="run one mode only")
    ap.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = ap.parse_args()
    table = Table(title="test suite wall time")
    for col in ("mode", "machine", "minutes", "outcome"):
        table.add_column(col)
    modes = {args.only: MODES[args.only]} if args.only else MODES
    for name, flags in modes.items():
        for load in (0, args.load):
            with cpu_load(load):
                seconds, outcome = run_suite([*flags, *args.pytest_args])
            machine = f"{load} CPU burners" if load else "quiet"
            table.add_row(name, machine, f"{seconds / 60:.1f}", outcome)
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
