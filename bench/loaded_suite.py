"""The test suite on a loaded machine: the Quickstart's test command (in this
environment: `python -m pytest -q`, the suite's own parallelism) run while `--busy`
processes spin on the CPU. Prints the 1-minute load average it saw (min, median, max of
samples every 30 s), how long the suite took, and its summary line and exit status.

    python bench/loaded_suite.py                  # 18 busy processes: load about 20 on 2 cores
    python bench/loaded_suite.py --busy 8 -- tests/server   # fewer, on part of the suite

The suite's wall-clock guards are meant to catch hangs, not slowness: at any load it
should pass, only slower.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

SPIN = "while True: pass"
SAMPLE_SECONDS = 30.0


def _sample_load(samples: list[float], stop: threading.Event) -> None:
    while not stop.wait(SAMPLE_SECONDS):
        samples.append(os.getloadavg()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, default=18, help="processes spinning on the CPU")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args()
    if args.busy < 0:
        sys.exit(f"error: --busy must be 0 or more, got {args.busy}")
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(args.busy)]
    samples: list[float] = []
    stop = threading.Event()
    sampler = threading.Thread(target=_sample_load, args=(samples, stop), daemon=True)
    sampler.start()
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args.pytest_args],
            capture_output=True,
            text=True,
        )
    finally:
        stop.set()
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()
    took = time.monotonic() - started
    lines = [line for line in done.stdout.strip().splitlines() if line.strip()]
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    load = (
        f"{min(samples):.1f} / {statistics.median(samples):.1f} / {max(samples):.1f}"
        if samples
        else "not sampled (under 30 s)"
    )
    print(f"{os.cpu_count()} cores, {args.busy} busy processes")
    print(f"load average (1 min) min / median / max: {load}")
    print(f"suite: {took / 60:.1f} min, exit status {done.returncode}")
    print(f"summary: {lines[-1] if lines else '(no output)'}")
    for line in failed:
        print(line)


if __name__ == "__main__":
    main()
