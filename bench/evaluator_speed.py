"""How fast `evaluator score` is, against τ-Rec v1.0's own evaluator and against merely
reading and parsing the same logs.

Writes N episode logs (bench/scoring_workload.py: 33 lines each, messages, six filter
calls, a history lookup, an availability check, a recommendation; chained and signed as
the server writes them, the headers those of one sealed run) over τ-Rec's release (60
tasks) when it lies at ../shared/third_party/tau-rec-v1.0 (else over 30 generated tasks
on the built-in catalog, without the τ-Rec rows). Each log is also converted to the trace
τ-Rec's orchestrator would have recorded (evaluator/recommendation/taurec_trace.py).
Then, in one run and in alternating order, it times:
  floor:  open every log and orjson-parse every line, one process;
  floor + chain: the floor, plus checking each log's hash chain (one SHA-256 per line);
  parse + chain: reading, parsing and validating every event as `evaluator score` does,
          plus the chain: everything before scoring proper;
  τ-Rec:  τ-Rec v1.0's `CombinedEvaluator` (imported from its source beside the release,
          never copied here; needs rank-bm25): read each trace file, validate it as a
          `ConversationTrace`, evaluate it (catalog and tasks loaded beforehand, untimed);
  score:  `evaluator score`'s path with a fresh resolver (suite loading timed): read,
          parse and validate, check the hash chain, resolve the suite, replay the
          read-only calls, transcript, constraints, policy checks, dialogue figures; in one
          process and in --workers (2) processes; and the same with --verify, where a
          sealed log whose end-record HMAC verifies with the server's key is not replayed
          (the signature proves the server wrote its results).
From that one run it prints each row's seconds, CPU seconds (ours: this process and its
workers), episodes per second, ratios to the floor and to τ-Rec's rate, the targets
(`evaluator score` >= 1.0x τ-Rec's rate in one process, >= 2.0x in two), how many logs
--verify trusted by signature, log bytes per episode beside τ-Rec's trace bytes, and on
how many episodes our `--rules tau-rec` reward equals τ-Rec's. It exits 1, with one line
saying which ratio is under its target, when one is (and when a reward differs or a
bench log fails to score). Aggregation (pass^k, once per report) is timed apart.

Where the time goes (CPU per episode of each stage of `score_file`, timed alone over the
620 bench logs with results discarded as scoring discards them, the minimum of 15
interleaved runs, 2 cores at load average below 1):
  - τ-Rec's evaluator, whole: 145-150 us (reading and validating its trace included);
  - score_file, whole: 257 us; with --verify (trusted, no replay) 233 us; a fresh
    resolver adds about 40 us an episode over 620 logs (the suite's 8 ms load, first
    replays of each call);
  - reading 12 us; parsing and validating 67 us (orjson 31, the strict validation of the
    events 21, the header 7); the hash chain 44 us (33 SHA-256 calls in a Python loop;
    the HMAC adds 5): with reading, 123 us, 0.8 of τ-Rec's whole evaluation;
  - scoring proper 91 us: transcript 19, constraints and policies 25, the EpisodeScore
    and efficiency figures 9, replay 29 (warm cache; half of it the deep comparison of
    each logged result with the recomputed one), dialogue figures 4 (these logs carry no
    dialogue acts; logs with acts pay the full walk, see bench/dialogue_speed.py), model
    usage 3; the rest (last chain, copies and repeated-trial flags, freeing the parsed
    events) about 25 us;
  - two processes: this process scores chunks from the back of the list while a forked
    worker takes them from the front (its results come back pickled: about 7 us an
    episode to pickle there, 10 us to unpickle here); the fork and the worker's exit cost
    10-20 ms a run; CPU 0.24 s for the 620 logs against 0.20 s in one process.
So neither target can be met while every event is validated, every chain checked and
every unsigned log replayed: parsing and the chain alone take 0.8 of τ-Rec's time for a
whole evaluation, and τ-Rec makes none of those three checks.
What was tried, each measured on the same logs (`evaluator score` rows, ratios to τ-Rec's
rate from runs side by side, load average below 1):
  - a sealed log whose HMAC verifies is not replayed (--verify only): --verify in one
    process 0.41-0.42x -> 0.50x, in two 0.59-0.60x -> 0.66-0.68x; default rows unchanged;
  - dialogue figures found absent (no user message with acts) before any utterance is
    built: 25 -> 4 us; transcript records as named tuples instead of frozen dataclasses
    (0.3 against 0.75 us each, 17 an episode), the outcome found without building lists:
    28 -> 19-23 us; replay filters the read-only tools before checking and looks each
    result up once: 31-33 -> 29 us. Together: one process 0.40-0.42x -> 0.46x, two
    0.57-0.58x -> 0.62-0.65x;
  - the pool: this process scores too (it used to wait while two workers scored, three
    processes on two cores), in 8 chunks per process, the pool taking them from the front:
    two processes 0.62-0.65x -> 0.64-0.66x, CPU 0.25-0.26 s -> 0.23-0.24 s;
  - the chain hashed in one comprehension from the logged hashes (each line's hash
    depends on the previous one only through the value logged), the line-by-line walk
    kept to name a problem: 44 -> 43 us; not kept;
  - msgspec (not a dependency): decoding into one TypedDict of every event field, then
    checking each event's keys against its type's: 35 us against 52 us for orjson plus
    pydantic (17 us, 6% of an episode); not adopted: a third definition of the records to
    keep in step, dicts with keys in another order than pydantic's, and no target within
    reach;
  - the worker's results as plain tuples instead of EpisodeScores: 7 + 8 us against
    8 + 11 us an episode (a few ms a run); not kept. An EpisodeScore costs 2.4 us to make.

    python bench/evaluator_speed.py --episodes 620 --repeats 5
    python bench/evaluator_speed.py --logs LOGDIR --repeats 5   # logs the server wrote
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from scoring_workload import (  # a bench beside it, not a package
    BENCH_KEY,
    TAU_REC,
    TauRecEvaluator,
    bench_suite,
    write_logs,
    write_traces,
)

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.evaluate import available_key
from taurec.evaluator.logs import Resolver, find_logs, score_files
from taurec.tasks.suite import portable_suite_spec
from taurec.tasks.trajectory.reader import parse_log_bytes
from taurec.tasks.trajectory.signing import LogKey, verify_chain

__all__ = ["BENCH_KEY", "TAU_REC", "bench_suite", "write_logs"]  # bench/log_bytes.py uses them

#: row -> the least ratio to τ-Rec's rate it must reach
TARGETS = {"score1": 1.0, "scoreN": 2.0}
#: The same, on logs the server wrote (--logs): one process against τ-Rec's rate.
SERVER_LOG_TARGETS = {"score1": 1.5}


def read_only(files: list[Path]) -> int:
    n = 0
    for f in files:
        for line in f.read_bytes().splitlines():
            orjson.loads(line)
            n += 1
    return n


def read_and_chain(files: list[Path]) -> int:
    """The floor plus checking each log's hash chain: the least a scorer that checks the
    chain (as `evaluator score` does for every chained log) can do, before validating or
    scoring anything."""
    bad = 0
    for f in files:
        raw = f.read_bytes()
        for line in raw.splitlines():
            orjson.loads(line)
        bad += verify_chain(raw, None, require_signature=False) is not None
    return bad


def read_parse_chain(files: list[Path]) -> int:
    """Reading, parsing and validating every event as `evaluator score` does, and the
    chain: everything before scoring proper."""
    bad = 0
    for f in files:
        raw = f.read_bytes()
        bad += not parse_log_bytes(raw, str(f)).ok
        bad += verify_chain(raw, None, require_signature=False) is not None
    return bad


def logged_suite_specs(files: list[Path]) -> frozenset[str]:
    """The suites the logs' headers name (a run's plan would allow them)."""
    specs = set()
    for f in files:
        with f.open("rb") as fh:
            suite = orjson.loads(fh.readline()).get("suite") or {}
        if suite.get("spec"):
            specs.add(portable_suite_spec(suite["spec"]))
    return frozenset(specs)


def _median_lines(files: list[Path]) -> int:
    return round(statistics.median(f.read_bytes().count(b"\n") for f in files))


def _median_bytes(files: list[Path]) -> float:
    return statistics.median(f.stat().st_size for f in files)


def _cpu() -> float:
    """CPU seconds of this process and of its reaped children (the worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--episodes", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="processes of the parallel rows")
    ap.add_argument(
        "--tau-rec",
        type=Path,
        default=TAU_REC,
        help="τ-Rec v1.0's release folder (its source beside it, named <release>-src)",
    )
    ap.add_argument("--no-tau-rec", action="store_true", help="built-in catalog, no τ-Rec rows")
    ap.add_argument(
        "--logs",
        type=Path,
        help="score these logs (e.g. a `taurec run` folder) instead of writing bench logs; "
        "with τ-Rec rows when they are episodes of τ-Rec's release (`taurec run --suite "
        "tau-rec:RELEASE`), and --verify rows with this machine's log key",
    )
    args = ap.parse_args()
    console = Console(width=170)
    tau_rec = None if args.no_tau_rec or not args.tau_rec.is_dir() else args.tau_rec
    theirs = TauRecEvaluator(tau_rec) if tau_rec is not None else None
    targets = TARGETS if args.logs is None else SERVER_LOG_TARGETS
    verify_key = BENCH_KEY if args.logs is None else available_key()
    with tempfile.TemporaryDirectory(prefix="taurec-bench-") as tmp:
        t0 = time.perf_counter()
        traces: list[Path] = []
        if args.logs is not None:
            files = find_logs([args.logs])
            specs = logged_suite_specs(files)
            args.episodes = len(files)
            if theirs is not None and not all(s.startswith("tau-rec:") for s in specs):
                theirs = None  # not τ-Rec's episodes: no trace to give its evaluator
            traces = write_traces(files, Path(tmp) / "traces") if theirs else []
            console.print(
                f"{len(files):,} logs under {args.logs} ({_median_lines(files)} lines each)"
            )
        else:
            suite = bench_suite(Path(tmp), tau_rec, args.seed)
            specs = frozenset({suite.spec})
            out, events = write_logs(Path(tmp), args.episodes, args.seed, suite)
            files = find_logs([out])
            traces = write_traces(files, Path(tmp) / "traces") if theirs else []
            console.print(
                f"wrote {args.episodes:,} sealed, signed logs on suite {suite.id} "
                f"({events / args.episodes:.1f} lines each) in {time.perf_counter() - t0:.1f} s"
            )
        n = args.workers
        runs: dict[str, tuple[int, LogKey | None]] = {"score1": (1, None), "scoreN": (n, None)}
        if verify_key is not None:
            runs |= {"verify1": (1, verify_key), "verifyN": (n, verify_key)}
        times: dict[str, list[float]] = {k: [] for k in ("read", "chain", "parse", "tau")}
        times |= {k: [] for k in runs}
        cpu: dict[str, list[float]] = {k: [] for k in runs}
        aggregate_times: list[float] = []
        bad = trusted = 0
        gc.collect()
        for _ in range(args.repeats):  # alternating, so load on the machine hits all alike
            t0 = time.perf_counter()
            read_only(files)
            times["read"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            bad = max(bad, read_and_chain(files))
            times["chain"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            bad = max(bad, read_parse_chain(files))
            times["parse"].append(time.perf_counter() - t0)
            if theirs is not None:
                t0 = time.perf_counter()
                theirs.score(traces)
                times["tau"].append(time.perf_counter() - t0)
            for name, (workers, key) in runs.items():
                c0, t0 = _cpu(), time.perf_counter()
                # the logs name their suite, as a sealed run's plan would allow
                resolver = Resolver(verify_key=key, allowed_specs=specs)
                scores = score_files(files, resolver, workers=workers)
                times[name].append(time.perf_counter() - t0)
                cpu[name].append(_cpu() - c0)
                if name == "score1":  # pass^k with bootstrap intervals: once per report
                    t0 = time.perf_counter()
                    aggregate(scores)
                    aggregate_times.append(time.perf_counter() - t0)
                if key is not None:
                    trusted = sum(s.replay == "signed" for s in scores)
                bad = max(
                    bad, sum(s.infra_error or bool(s.problems or s.verification) for s in scores)
                )
                del scores
        med = {k: statistics.median(v) for k, v in times.items() if v}
        rate = {k: args.episodes / v for k, v in med.items()}
        vs_tau = {k: r / rate["tau"] for k, r in rate.items()} if "tau" in rate else {}
        title = f"evaluator speed, {args.episodes:,} episodes, median of {args.repeats}"
        table = Table(title=title)
        for col in ("measure", "seconds", "CPU s", "episodes/s", "x floor", "x τ-Rec rate"):
            table.add_column(col)
        table.add_column("target")

        def row(key: str, label: str) -> None:
            goal = targets.get(key)
            mark = ""
            if goal is not None and key in vs_tau:
                mark = f">= {goal:.1f}x: " + ("met" if vs_tau[key] >= goal else "[red]under[/red]")
            table.add_row(
                label,
                f"{med[key]:.3f}",
                f"{statistics.median(cpu[key]):.3f}" if key in cpu else "",
                f"{rate[key]:,.0f}",
                f"{med[key] / med['read']:.2f}",
                f"{vs_tau[key]:.2f}" if key in vs_tau else "-",
                mark,
            )

        row("read", "floor: read + orjson-parse our logs, 1 process")
        row("chain", "  floor + the hash chain check (least a chain-checking scorer does)")
        row("parse", "  read, parse, validate + the hash chain check (no scoring yet)")
        if "tau" in rate:
            row("tau", "τ-Rec v1.0 CombinedEvaluator on the converted traces, 1 process")
        row("score1", "evaluator score, 1 process (replays every log)")
        row("scoreN", f"evaluator score, {n} processes")
        if "verify1" in rate:
            row("verify1", "evaluator score --verify, 1 process (signed: replay skipped)")
            row("verifyN", f"evaluator score --verify, {n} processes")
        console.print(table)
        if "verify1" in rate:
            console.print(
                f"--verify: {trusted:,} of {len(files):,} logs trusted by their signature "
                "(sealed, HMAC verified with the server's key: replay skipped), "
                f"{len(files) - trusted:,} replayed"
            )
        console.print(
            f"aggregation (pass^k per label with bootstrap intervals), once per report: "
            f"{statistics.median(aggregate_times):.2f} s, not in the rates above "
            "(τ-Rec's evaluator has none)"
        )
        sizes = f"log bytes per episode (median): ours {_median_bytes(files):,.0f}"
        if traces:
            sizes += f", τ-Rec's trace of the same episode {_median_bytes(traces):,.0f}"
        console.print(sizes + " (bench/log_bytes.py tells what they are spent on)")
        failures = []
        if theirs is not None:
            agree = agreement(files, traces, theirs, specs)
            console.print(
                f"rewards under --rules tau-rec equal τ-Rec's on {agree:,} of {len(files):,} "
                "episodes"
            )
            if agree != len(files):
                failures.append(f"rewards differ from τ-Rec's on {len(files) - agree:,} episodes")
        if bad:
            failures.append(f"{bad} episodes failed to score: the bench logs are wrong")
        if vs_tau:
            named = {"score1": "one process", "scoreN": f"{n} processes"}
            goals = ", ".join(
                f"{named[k]} {vs_tau[k]:.2f}x (target >= {g:.1f}x)" for k, g in targets.items()
            )
            console.print(f"evaluator score against τ-Rec's rate: {goals}")
            under = [
                f"{named[k]} at {vs_tau[k]:.2f}x of τ-Rec's rate, under {g:.1f}x"
                for k, g in targets.items()
                if vs_tau[k] < g
            ]
            if under:
                failures.append("under target: evaluator score in " + "; in ".join(under))
        else:
            console.print("targets not checked: no τ-Rec rows to compare with")
        for line in failures:
            console.print(f"[red]{line}[/red]")
        return 1 if failures else 0


def agreement(
    files: list[Path], traces: list[Path], theirs: TauRecEvaluator, specs: frozenset[str]
) -> int:
    """On how many episodes our `--rules tau-rec` reward equals τ-Rec's (untimed)."""
    resolver = Resolver(rules="tau-rec", allowed_specs=specs)
    ours = [s.reward for s in score_files(files, resolver)]
    return sum(a == b for a, b in zip(ours, theirs.score(traces), strict=True))


if __name__ == "__main__":
    sys.exit(main())
