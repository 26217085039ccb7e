"""How long `taurec --help` and `evaluator --help` take, against a bare interpreter.

Each command runs N times as a fresh process (alternating, so machine load falls on all
alike); the median wall time and the median CPU time (user + system, of the child) of
each are printed with `python -c pass` as the floor measured in the same run. Wall time
swells on a loaded machine; CPU time barely does. Target: under 0.3 s for both --help.

    python bench/cli_startup.py --runs 15
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_S = 0.3


def _script(name: str) -> list[str]:
    """The installed console script next to this interpreter, or the module's main."""
    found = Path(sys.executable).with_name(name)
    if found.exists():
        return [str(found)]
    module = {"taurec": "taurec.clients.cli", "evaluator": "taurec.evaluator.cli"}[name]
    return [sys.executable, "-c", f"import {module} as m; m.main()"]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _once(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run."""
    cpu, start = _cpu(), time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="Runs of each command.")
    args = parser.parse_args()
    commands = {
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
        "taurec --help": [*_script("taurec"), "--help"],
        "taurec --version": [*_script("taurec"), "--version"],
        "evaluator --help": [*_script("evaluator"), "--help"],
    }
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for argv in commands.values():  # warm the file cache once
        _once(argv)
    for _ in range(args.runs):
        for name, argv in commands.items():
            times[name].append(_once(argv))
    floor = statistics.median(w for w, _ in times["python -c pass (floor)"])
    print(f"{'command':<26} {'wall s':>7} {'min s':>6} {'over floor':>11} {'cpu s':>6}  target")
    for name, values in times.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        verdict = "" if "floor" in name else ("ok" if wall < TARGET_S else f"wall over {TARGET_S}")
        print(
            f"{name:<26} {wall:>7.3f} {min(w for w, _ in values):>6.3f} "
            f"{wall - floor:>11.3f} {cpu:>6.3f}  {verdict}"
        )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{args.runs} runs each, python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
