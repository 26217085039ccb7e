"""The test suite's wall and CPU time, on the machine as it is and under added CPU load.

Runs the README's test command (`python -m pytest -q`, parallel by default) from the
repository twice in one invocation: first as the machine is ("quiet": nothing added),
then while `--load N` busy-looping processes started by this script burn CPU (a 2-core
machine shared with other work). For each run it prints the wall time, the CPU time the
suite used (user + system of pytest and every process it waited for: its xdist workers
and the servers the tests start; from `resource.getrusage(RUSAGE_CHILDREN)` before and
after, read before the busy loops are reaped so their time is not counted), the load
average at the end, and pytest's outcome line; then the loaded/quiet ratio of wall times.
CPU time barely moves with load, wall time does: the CPU time is what the suite costs,
the loaded wall time is what a developer waits on a busy machine. Target: <= 4 min wall
on 2 cores under load, with no failure that only load causes.

Each run's whole output goes to a file (`--out-dir`, a new temporary folder by default),
whose path is printed. The busy loops are stopped when the script ends, however it ends
(Ctrl-C and SIGTERM included). Arguments after `--` go to pytest, for a quick run of the
script itself or to time a part of the suite.

    python bench/suite_time.py                          # the whole suite, quiet then 2 busy loops
    python bench/suite_time.py --load 4 -- --durations=60
    python bench/suite_time.py -- tests/evaluator -k report    # a quick run of the bench
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
BURN = "while True:\n    pass\n"


@dataclass(frozen=True)
class Timing:
    machine: str
    wall_s: float
    cpu_s: float
    load_average: tuple[float, float, float]
    outcome: str
    returncode: int
    output: Path


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for p in processes:
        if p.poll() is None:
            p.kill()
    for p in processes:
        p.wait()


@contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """`count` processes that burn CPU until the block ends (killed on exit, Ctrl-C and
    SIGTERM; SIGTERM is turned into KeyboardInterrupt so the block's cleanup runs)."""
    burners = [
        subprocess.Popen([sys.executable, "-c", BURN], stdin=subprocess.DEVNULL)
        for _ in range(count)
    ]
    try:
        yield
    finally:
        _stop(burners)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def run_suite(machine: str, load: int, pytest_args: list[str], out_dir: Path) -> Timing:
    """One run of the suite with `load` busy loops beside it; its output saved to a file."""
    output = out_dir / f"suite-{machine.replace(' ', '-')}.txt"
    command = [sys.executable, "-m", "pytest", "-q", *pytest_args]
    with busy_loops(load), output.open("wb") as sink:
        cpu_before = _children_cpu_s()
        began = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT)
        wall = time.monotonic() - began
        cpu = _children_cpu_s() - cpu_before  # before the busy loops are reaped
        load_average = os.getloadavg()
    lines = [line for line in output.read_text(errors="replace").splitlines() if line.strip()]
    return Timing(
        machine, wall, cpu, load_average, lines[-1] if lines else "", done.returncode, output
    )


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--load", type=int, default=2, help="busy-looping processes (default 2)")
    ap.add_argument("--out-dir", type=Path, help="where each run's output goes (a new tmp dir)")
    ap.add_argument("pytest_args", nargs="*", help="after --: passed on to pytest")
    args = ap.parse_args()
    if args.load < 1:
        ap.error(f"--load must be at least 1 busy loop, got {args.load}")
    out_dir = args.out_dir or Path(tempfile.mkdtemp(prefix="suite-time-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignoring it
    command = " ".join(["python -m pytest -q", *args.pytest_args])
    print(f"{command}  (from {ROOT}, {os.cpu_count()} CPUs; output in {out_dir})", flush=True)
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("PYTHONDONTWRITEBYTECODE is set: every process compiles its modules afresh")
    timings = []
    for machine, load in (("quiet", 0), (f"{args.load} busy loops", args.load)):
        t = run_suite(machine, load, args.pytest_args, out_dir)
        timings.append(t)
        averages = " ".join(f"{a:.1f}" for a in t.load_average)
        print(
            f"{t.machine:>14}: wall {_minutes(t.wall_s)} ({t.wall_s:.0f} s), "
            f"CPU {t.cpu_s / 60:.1f} min ({t.cpu_s:.0f} s), load average {averages}; "
            f"{t.outcome}  [{t.output}]",
            flush=True,
        )
    quiet, loaded = timings
    print(
        f"loaded / quiet: wall {loaded.wall_s / quiet.wall_s:.2f}x, "
        f"CPU {loaded.cpu_s / quiet.cpu_s:.2f}x"
    )
    return max(t.returncode for t in timings)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt as stop:
        sys.exit(f"suite_time: interrupted ({stop or 'Ctrl-C'}); the busy loops are stopped")
