"""How long `taurec --help`, `evaluator --help` and the commands' own --help take,
against a bare interpreter.

Each command runs N times as a fresh process (alternating, so machine load falls on all
alike); the median wall time and the median CPU time (user + system, of the child) of
each are printed with `python -c pass` as the floor measured in the same run. Wall time
swells on a loaded machine; CPU time barely does. Target: under 0.3 s for every --help
(a command's own help loads only its module, which imports the heavy stack in the
command's body).

`--against DIR` also times the console scripts in DIR (another install's bin folder,
e.g. ../main/.venv/bin), interleaved with these in the same run, and prints the ratios of
their wall and CPU medians (theirs / ours) for each command.

    python bench/cli_startup.py --runs 15
    python bench/cli_startup.py --runs 15 --against ../main/.venv/bin
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
FLOOR = "python -c pass (floor)"
#: the commands timed, as arguments of a program
COMMANDS: dict[str, tuple[str, list[str]]] = {
    "taurec --help": ("taurec", ["--help"]),
    "taurec --version": ("taurec", ["--version"]),
    "evaluator --help": ("evaluator", ["--help"]),
    "taurec run --help": ("taurec", ["run", "--help"]),
    "taurec serve --help": ("taurec", ["serve", "--help"]),
    "taurec play --help": ("taurec", ["play", "--help"]),
    "taurec catalog generate --help": ("taurec", ["catalog", "generate", "--help"]),
    "evaluator score --help": ("evaluator", ["score", "--help"]),
}


def _script(name: str, folder: Path | None = None) -> list[str]:
    """The console script in `folder` (default: beside this interpreter), or the module's
    main."""
    found = (folder or Path(sys.executable).parent) / name
    if found.exists():
        return [str(found)]
    if folder is not None:
        raise SystemExit(f"--against {folder}: no {name} script there")
    module = {"taurec": "taurec.clients.cli.main", "evaluator": "taurec.evaluator.cli.main"}[name]
    return [sys.executable, "-c", f"import {module} as m; m.main()"]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _once(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run."""
    cpu, start = _cpu(), time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start, _cpu() - cpu


def _commands(folder: Path | None, suffix: str) -> dict[str, list[str]]:
    return {
        f"{name}{suffix}": [*_script(program, folder), *args]
        for name, (program, args) in COMMANDS.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="Runs of each command.")
    parser.add_argument(
        "--against", type=Path, default=None, help="Another install's bin folder to time too."
    )
    args = parser.parse_args()
    ours = _commands(None, "")
    theirs = _commands(args.against, " [against]") if args.against else {}
    commands = {FLOOR: [sys.executable, "-c", "pass"], **ours, **theirs}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for argv in commands.values():  # warm the file cache once
        _once(argv)
    for _ in range(args.runs):
        for name, argv in commands.items():
            times[name].append(_once(argv))
    wall = {name: statistics.median(w for w, _ in values) for name, values in times.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in times.items()}
    floor = wall[FLOOR]
    print(f"{'command':<42} {'wall s':>7} {'min s':>6} {'over floor':>11} {'cpu s':>6}  target")
    for name, values in times.items():
        verdict = "" if name == FLOOR else ("ok" if wall[name] < TARGET_S else "wall over target")
        print(
            f"{name:<42} {wall[name]:>7.3f} {min(w for w, _ in values):>6.3f} "
            f"{wall[name] - floor:>11.3f} {cpu[name]:>6.3f}  {verdict}"
        )
    if theirs:
        print(f"\n[against] = {args.against}; ratios of the medians, against / ours:")
        for name in COMMANDS:
            other = f"{name} [against]"
            print(
                f"  {name:<40} wall {wall[other] / wall[name]:>5.1f}x  "
                f"cpu {cpu[other] / cpu[name]:>5.1f}x"
            )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{args.runs} runs each, python {sys.version.split()[0]}, target {TARGET_S} s")


if __name__ == "__main__":
    main()
