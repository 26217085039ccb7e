"""How long `taurec --help` and `evaluator --help` take, against a bare interpreter.

Each command runs N times as a fresh process (alternating, so machine load falls on all
alike); the median of each is printed with `python -c pass` as the floor measured in the
same run. Target: under 0.3 s for both --help.

    python bench/cli_startup.py --runs 15
"""

from __future__ import annotations

import argparse
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


def _once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


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
    times: dict[str, list[float]] = {name: [] for name in commands}
    for name, argv in commands.items():  # warm the file cache once
        _once(argv)
    for _ in range(args.runs):
        for name, argv in commands.items():
            times[name].append(_once(argv))
    floor = statistics.median(times["python -c pass (floor)"])
    print(f"{'command':<26} {'median s':>9} {'min s':>7} {'over floor s':>13}  target")
    for name, values in times.items():
        med = statistics.median(values)
        verdict = "" if "floor" in name else ("ok" if med < TARGET_S else f"over {TARGET_S}")
        print(f"{name:<26} {med:>9.3f} {min(values):>7.3f} {med - floor:>13.3f}  {verdict}")
    print(f"{args.runs} runs each, python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
