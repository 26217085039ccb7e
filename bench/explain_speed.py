"""Where `evaluator explain`'s time goes, per log: one process per file (as scripts did
before explain took folders) against one process over a folder of logs.

    python bench/explain_speed.py             # 10 random-agent episodes, 3 repeats
    python bench/explain_speed.py --episodes 20 --repeats 5

Prints medians of: the process start-up (`evaluator --help`), `explain FILE` per file,
`explain DIR` per file, and, in one process, loading the suite (the first log) against
scoring a further log.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def _seconds(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _in_process(files: list[Path]) -> tuple[float, float]:
    from taurec.evaluator.logs import Resolver, score_file

    resolver = Resolver()
    start = time.perf_counter()
    score_file(files[0], resolver)
    first = time.perf_counter() - start
    rest = []
    for f in files[1:]:
        start = time.perf_counter()
        score_file(f, resolver)
        rest.append(time.perf_counter() - start)
    return first, statistics.median(rest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "logs"
        tasks = ",".join(f"t{n:03d}" for n in range(1, args.episodes + 1))
        subprocess.run(
            [
                str(BIN / "taurec"),
                "run",
                "--agent",
                "random",
                "--trials",
                "1",
                "--tasks",
                tasks,
                "--out",
                str(out),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        files = sorted(out.rglob("*.jsonl"))
        evaluator = str(BIN / "evaluator")
        startup = [_seconds([evaluator, "--help"]) for _ in range(args.repeats)]
        per_file = [_seconds([evaluator, "explain", str(f)]) for f in files[: args.repeats * 2]]
        folder = [
            _seconds([evaluator, "explain", str(out)]) / len(files) for _ in range(args.repeats)
        ]
        first, further = _in_process(files)
    rows = [
        ("process start-up (evaluator --help)", statistics.median(startup)),
        ("explain FILE, one process per file", statistics.median(per_file)),
        (f"explain DIR, per file ({len(files)} files)", statistics.median(folder)),
        ("in one process: first log (loads the suite)", first),
        ("in one process: each further log", further),
    ]
    for name, seconds in rows:
        print(f"{name:<48} {seconds * 1000:9.1f} ms")
    print(f"{'ratio: per-file process / folder':<48} {rows[1][1] / rows[2][1]:9.1f} x")


if __name__ == "__main__":
    main()
