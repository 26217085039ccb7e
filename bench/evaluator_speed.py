"""How fast `evaluator score` is, against τ-Rec v1.0's own evaluator, against reading the
same logs, and against the most any scorer with the same checks could do.

The workload is logs the taurec server wrote: `taurec run` over τ-Rec's release (60
tasks; at ../shared/third_party/tau-rec-v1.0, else the built-in suite without the τ-Rec
rows) with the agents of --agents, --trials each, offline and in process, signed with a
bench key (bench/scoring_workload.py); or the logs under --logs (this machine's log key
verifies them); or --synthetic N bench-written logs with distinct texts. Each log is also
converted to the trace τ-Rec's orchestrator would have recorded
(evaluator/recommendation/taurec_trace.py) for τ-Rec's evaluator.

Every row runs in each of --repeats rounds, the rows of a round in a fresh random order
(seeded), so load on the machine falls on all alike; each row is named by exactly what it
does. Rows with "N processes" fork --workers processes (this one among them) after the
suite (τ-Rec: its catalog and tasks) is loaded, and gather the results here. From that
one run it prints each row's median wall and CPU seconds (this process and its reaped
children), episodes per second, and its ratio to τ-Rec's rate in one process and, for the
N-process rows, in N processes. The ceilings are the faster of two readers doing every
check made before scoring, nothing scored: the evaluator's own, and the fastest the bench
can build (bench/fast_reader.py: one msgspec call for all event lines, tool results'
payloads kept as bytes, no dicts). Targets, against τ-Rec in one process: `evaluator
score --verify` >= 1.5x in one process and >= 2.5x in N; every check including replay
>= 1.0x in one process. The bench exits 1, saying which, when a target is missed, a
reward under --rules tau-rec differs from τ-Rec's or a log fails to score; a target
above its ceiling is marked as out of reach of any scoring.

    python bench/evaluator_speed.py --trials 34 --repeats 5           # 2,040 scripted logs
    python bench/evaluator_speed.py --agents scripted,random,popularity,oracle --trials 2
    python bench/evaluator_speed.py --logs LOGDIR --repeats 5         # logs already written
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from scoring_bounds import (  # benches beside it, not a package
    checks_only,
    every_check,
    fast_checks,
    read_and_parse,
    read_only,
    run_all,
)
from scoring_workload import (
    BENCH_KEY,
    TAU_REC,
    TauRecEvaluator,
    bench_suite,
    server_logs,
    write_logs,
    write_traces,
)

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.evaluate import available_key
from taurec.evaluator.logs import Resolver, find_logs, score_file, score_files
from taurec.tasks.suite import portable_suite_spec
from taurec.tasks.trajectory.signing import LogKey

#: row -> the least ratio to τ-Rec's rate in one process it must reach
TARGETS = {"verify1": 1.5, "verifyN": 2.5, "all1": 1.0}


def logged_suite_specs(files: list[Path]) -> frozenset[str]:
    """The suites the logs' headers name (a run's plan would allow them)."""
    specs = set()
    for f in files:
        with f.open("rb") as fh:
            suite = orjson.loads(fh.readline()).get("suite") or {}
        if suite.get("spec"):
            specs.add(portable_suite_spec(suite["spec"]))
    return frozenset(specs)


def _cpu() -> float:
    """CPU seconds of this process and of its reaped children (the worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@dataclass
class Row:
    label: str
    run: Callable[[], int]  # how many logs failed (none should)
    wall: list[float]
    cpu: list[float]


@dataclass
class Workload:
    files: list[Path]
    traces: list[Path]
    specs: frozenset[str]
    key: LogKey | None
    tau_rec: Path | None
    what: str


def workload(args: argparse.Namespace, tmp: Path, tau_rec: Path | None) -> Workload:
    """The logs to score (module docstring), their traces, suites and verifying key."""
    key: LogKey | None
    if args.logs is not None:
        files, key = find_logs([args.logs]), available_key()
        what = f"under {args.logs}"
    elif args.synthetic:
        suite = bench_suite(tmp, tau_rec, args.seed)
        out, _ = write_logs(tmp, args.synthetic, args.seed, suite)
        files, key, what = find_logs([out]), BENCH_KEY, "written by the bench"
    else:
        spec = f"tau-rec:{tau_rec}" if tau_rec is not None else "builtin"
        out, key = server_logs(tmp, spec, args.agents.split(","), args.trials)
        files, what = find_logs([out]), f"written by `taurec run --agent {args.agents}`"
    specs = logged_suite_specs(files)
    if tau_rec is not None and not all(s.startswith("tau-rec:") for s in specs):
        tau_rec = None  # not τ-Rec's episodes: no trace to give its evaluator
    traces = write_traces(files, tmp / "traces") if tau_rec is not None else []
    return Workload(files, traces, specs, key, tau_rec, what)


def make_rows(w: Workload, n: int) -> dict[str, Row]:
    """Every row of the table, by key (see the module docstring)."""
    rows: dict[str, Row] = {}

    def add(key: str, label: str, run: Callable[[], int]) -> None:
        rows[key] = Row(label, run, [], [])

    def pool(key: LogKey | None, one: Callable[..., object], workers: int) -> Callable[[], int]:
        # a fresh resolver each time: the suite's load is timed, as τ-Rec's is
        return lambda: run_all(
            w.files, Resolver(verify_key=key, allowed_specs=w.specs), workers, one
        )

    add("read", "read every file whole", lambda: read_only(w.files) * 0)
    add(
        "orjson",
        "read + orjson-parse every line (no field checked)",
        lambda: read_and_parse(w.files) * 0,
    )
    if w.tau_rec is not None:
        tau, traces = w.tau_rec, w.traces
        done = "load catalog + tasks, read + validate each trace, evaluate"
        add("tau1", f"τ-Rec v1.0: {done}; 1 process", lambda: _tau(tau, traces, 1))
        add("tauN", f"τ-Rec v1.0: the same, {n} processes", lambda: _tau(tau, traces, n))
    checks = "read, validate every field, chain" + (" + HMAC" if w.key else "")
    scored = "constraints, policies, dialogue figures"
    kinds: list[tuple[str, str, LogKey | None, Callable[..., object]]] = [
        (
            "fast",
            f"ceiling, fastest reader: {checks} (payloads as bytes), suite, task hash; "
            "nothing scored",
            w.key,
            fast_checks,
        ),
        (
            "ours",
            f"ceiling, our reader: {checks}, suite, task hash; nothing scored",
            w.key,
            checks_only,
        ),
        (
            "replay",
            "evaluator score: read, validate every field, chain (no HMAC), replay of "
            f"every log; {scored}",
            None,
            score_file,
        ),
    ]
    if w.key is not None:
        kinds += [
            (
                "verify",
                f"evaluator score --verify: {checks}; {scored}; signed sealed logs not replayed",
                w.key,
                score_file,
            ),
            ("all", f"every check: {checks}, replay of every log; {scored}", w.key, every_check),
        ]
    for workers, p in ((1, "1 process"), (n, f"{n} processes")):
        for name, label, key, one in kinds:
            add(name + ("1" if workers == 1 else "N"), f"{label}; {p}", pool(key, one, workers))
    return rows


def _tau(release: Path, traces: list[Path], processes: int) -> int:
    rewards = TauRecEvaluator(release).score_in(traces, processes)
    return len(traces) - len(rewards)


def time_rows(rows: dict[str, Row], repeats: int, seed: int) -> int:
    """Each row once per round, the rounds' orders shuffled; the most logs any run failed."""
    order = list(rows)
    rng = random.Random(seed)
    bad = 0
    gc.collect()
    for _ in range(repeats):
        rng.shuffle(order)
        for key in order:
            row = rows[key]
            c0, t0 = _cpu(), time.perf_counter()
            bad = max(bad, row.run())
            row.wall.append(time.perf_counter() - t0)
            row.cpu.append(_cpu() - c0)
            gc.collect()
    return bad


def report(rows: dict[str, Row], episodes: int, n: int, console: Console) -> list[str]:
    """The table, and one line per target missed."""
    wall = {k: statistics.median(r.wall) for k, r in rows.items()}
    rate = {k: episodes / v for k, v in wall.items()}
    tau1, tauN = rate.get("tau1"), rate.get("tauN")
    table = Table(
        title=f"evaluator speed, {episodes:,} episodes, median of {len(rows['read'].wall)}"
    )
    for col in ("row", "wall s", "CPU s", "episodes/s", "x τ-Rec 1", f"x τ-Rec {n}", "target"):
        table.add_column(col, overflow="fold")
    failures = []
    for key, row in rows.items():
        goal = TARGETS.get(key)
        ratio = rate[key] / tau1 if tau1 else None
        mark = ""
        if goal is not None and ratio is not None:
            ceiling = max(rate.get("fast" + key[-1], 0.0), rate.get("ours" + key[-1], 0.0)) / tau1
            met = ratio >= goal
            mark = f">= {goal:.1f}x: " + ("met" if met else "[red]under[/red]")
            if not met:
                reach = f" (ceiling {ceiling:.2f}x: out of reach)" if ceiling < goal else ""
                failures.append(
                    f"{row.label}: {ratio:.2f}x τ-Rec in 1 process, under {goal:.1f}x{reach}"
                )
        table.add_row(
            row.label,
            f"{wall[key]:.3f}",
            f"{statistics.median(row.cpu):.3f}",
            f"{rate[key]:,.0f}",
            f"{ratio:.2f}" if ratio is not None else "-",
            f"{rate[key] / tauN:.2f}" if tauN and key.endswith("N") else "",
            mark,
        )
    console.print(table)
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--agents", default="scripted", help="comma-separated `taurec run` agents")
    ap.add_argument("--trials", type=int, default=34, help="trials per task and agent")
    ap.add_argument("--logs", type=Path, help="score these logs instead of writing them")
    ap.add_argument("--synthetic", type=int, default=0, help="N bench-written logs instead")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="processes of the N-process rows")
    ap.add_argument("--tau-rec", type=Path, default=TAU_REC, help="τ-Rec v1.0's release folder")
    ap.add_argument("--no-tau-rec", action="store_true", help="no τ-Rec rows")
    args = ap.parse_args()
    console = Console(width=170)
    tau_rec = None if args.no_tau_rec or not args.tau_rec.is_dir() else args.tau_rec
    with tempfile.TemporaryDirectory(prefix="taurec-bench-") as tmp:
        t0 = time.perf_counter()
        w = workload(args, Path(tmp), tau_rec)
        lines = statistics.median(f.read_bytes().count(b"\n") for f in w.files)
        size = statistics.median(f.stat().st_size for f in w.files)
        console.print(
            f"{len(w.files):,} logs {w.what} ({lines:.0f} lines, {size:,.0f} bytes each, "
            f"median), ready in {time.perf_counter() - t0:.1f} s; load average "
            f"{os.getloadavg()[0]:.1f}"
        )
        rows = make_rows(w, args.workers)
        bad = time_rows(rows, args.repeats, args.seed)
        failures = report(rows, len(w.files), args.workers, console)
        t0 = time.perf_counter()
        scores = score_files(w.files, Resolver(verify_key=w.key, allowed_specs=w.specs))
        trusted = sum(s.replay == "signed" for s in scores)
        aggregate(scores)
        console.print(
            f"--verify trusted {trusted:,} of {len(w.files):,} logs by their signature; "
            f"aggregation (pass^k with bootstrap intervals, once per report) "
            f"{time.perf_counter() - t0:.2f} s with one more scoring, not in the rates above; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        if w.tau_rec is not None:
            agree = agreement(w)
            console.print(
                f"rewards under --rules tau-rec equal τ-Rec's on {agree:,} of {len(w.files):,}"
            )
            if agree != len(w.files):
                failures.append(f"rewards differ from τ-Rec's on {len(w.files) - agree:,} episodes")
        else:
            console.print("targets not checked: no τ-Rec rows to compare with")
        if bad:
            failures.append(f"{bad} episodes failed to score: the bench logs are wrong")
        for line in failures:
            console.print(f"[red]{line}[/red]")
        return 1 if failures else 0


def agreement(w: Workload) -> int:
    """On how many episodes our `--rules tau-rec` reward equals τ-Rec's (untimed)."""
    assert w.tau_rec is not None
    resolver = Resolver(rules="tau-rec", allowed_specs=w.specs)
    ours = [s.reward for s in score_files(w.files, resolver)]
    theirs = TauRecEvaluator(w.tau_rec).score(w.traces)
    return sum(a == b for a, b in zip(ours, theirs, strict=True))


if __name__ == "__main__":
    sys.exit(main())
