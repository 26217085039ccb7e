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
  floor + chain: the floor, plus checking each log's hash chain (format v2: one SHA-256
          over the file up to its last line's chain);
  parse + chain: reading, parsing and validating every event as `evaluator score` does,
          plus the chain: everything before scoring proper;
  τ-Rec:  τ-Rec v1.0's `CombinedEvaluator` (imported from its source beside the release,
          never copied here; needs rank-bm25): load its catalog and tasks, then read each
          trace file, validate it as a `ConversationTrace` and evaluate it, as a user
          running it would; and the same with catalog and tasks loaded beforehand;
  score:  `evaluator score`'s path with a fresh resolver (suite loading timed, as τ-Rec's
          is above): read, parse and validate, check the hash chain, resolve the suite,
          replay the read-only calls, transcript, constraints, policy checks, dialogue
          figures; in one process and in --workers (2) processes; and the same with
          --verify, where the end record's HMAC is checked too and a sealed log whose HMAC
          verifies with the server's key is not replayed (the signature proves the server
          wrote its results): every check on, replay where it is needed;
  ceiling: everything `evaluator score` does to a log before scoring it, with nothing
          scored (bench/scoring_bounds.py): reading, parsing and validating, the chain and
          (with a key) the HMAC, the suite's load, the task and its hash; in one process
          and in --workers processes, through the same pool. Its rate is the most any
          scoring could reach with every check on.
From that one run it prints each row's seconds, CPU seconds (ours: this process and its
workers), episodes per second, ratios to the floor and to τ-Rec's rate (with its loading),
the targets (`evaluator score` with every check on, i.e. --verify: >= 1.0x τ-Rec's rate in
one process, >= 2.0x in two; on logs the server wrote, >= 1.5x in one), how many logs
--verify trusted by signature, log bytes per episode beside τ-Rec's trace bytes, and on
how many episodes our `--rules tau-rec` reward equals τ-Rec's. It exits 1, with one line
saying which ratio is under its target, when one is (and when a reward differs or a
bench log fails to score); a ratio under target whose ceiling is under it too is marked
as out of reach of any scoring. Aggregation (pass^k, once per report) is timed apart.

Where the time goes (wall time per episode of each stage of `score_file` with --verify,
over the 620 bench logs, the fastest of 7 runs, suite loaded; 2 cores, load below 1):
  - τ-Rec's evaluator, whole: 145-155 us (reading and validating its trace included);
    loading its catalog and tasks, 7-10 ms a run;
  - score_file with --verify: 174 us; reading 12; parsing and validating 72 (orjson about
    32, the strict validation of the events 25, the header 7); the chain and HMAC 20;
    scoring proper 56 (transcript 13, policy checks 12, constraints, dialogue figures and
    model usage 5, the EpisodeScore and the rest); freeing the parsed log about 9;
  - without --verify, replay adds 25-30 us (recomputing nine read-only calls and
    comparing each logged result with the recomputed one);
  - a fresh resolver loads the suite in about 15 ms (τ-Rec's release read and converted
    8, the title index 4, the suite's hash 2): 24 us an episode over 620 logs;
  - two processes: the suite is loaded before the worker forks (15 ms, not shared out),
    the fork costs 3-5 ms, the worker's 310 scores are pickled (4 ms) and unpickled here
    (3.5 ms) after both are done, and each process scores about 7% slower beside the
    other: 0.096 s against 0.129 s in one, CPU 0.17 s against 0.13 s.
So with every check on, reading, parsing, validating and the chain (0.061 s, 1.61x τ-Rec's
rate) leave about 35 ms of the 98 ms τ-Rec takes for 620 episodes, in which the suite's
load (15 ms) and scoring proper (35 ms) do not fit: one process is at 0.76x. The ceiling
rows measure it whole (every check and the suite's load, nothing scored): on the bench
logs 1.35x in one process and 1.77x in two, on 10,020 server-written logs 1.46x in one
process (2.37x in two). So 2.0x in two processes and 1.5x in one on server logs are out
of reach of any scoring while these checks run; 1.0x in one process on the bench logs
leaves about 26 ms for scoring 620 episodes (42 us each, against about 87 us spent now).
What changed, each measured on the same logs (ratios to τ-Rec's rate from runs side by
side, the τ-Rec rows loading their catalog and tasks only from this change on):
  - log format v2: each line's chain hashes the whole file before it, so the check is one
    SHA-256 (9 us) instead of 33 in a Python loop (44 us); v1 logs verify as before;
  - the policy checks: title matches found once per episode and shared, texts without a
    title or disclosure word skipped at once, the title matcher trying only the lengths a
    pair of first words can start: on server logs 90 -> 22 us;
  - dialogue figures and the simulator audit in one pass with a per-task plan: on server
    logs 69 -> 33 us;
  - replay in one loop, failing calls remembered too; the transcript built without a
    constructor call per record; constraint verdicts remembered per (constraint, value)
    and (task, item): score_log 86 -> 68 us on bench logs, 151 -> 131 on server logs;
  - a log read with os.open/fstat/read (17 -> 12 us); the HMAC with hmac.digest; the key
    id computed once; the last line's number counted only for a message;
  - event lines in the server's order (type first) parsed and checked in one pass by
    msgspec, one decoder per type over the reader's TypedDicts: on server logs parsing and
    validating 76 -> 59 us, the ceiling 1.23x -> 1.46x, --verify in one process 0.64x ->
    0.71x and in two 1.13x -> 1.26x; on the bench logs (written type first from then on,
    as the server writes them) a few us;
  - two processes: lean forked workers that take chunks from a shared counter and send
    their scores back once, as plain dicts (the pool and its queues cost more);
  - together, against τ-Rec with its catalog and tasks loaded beforehand (as the earlier
    figures were): one process 0.46x -> 0.55x, --verify 0.58x -> 0.70x; two processes
    0.64x -> 0.78x, --verify 0.78x -> 0.94x; against τ-Rec loading them too: 0.59x,
    0.76x, 0.85x and 1.02x.
Tried and not kept: msgspec decoding into tagged structs (30 us against 53 for orjson and
pydantic on bench logs, but 50 once turned into the dicts every reader takes: decoding
straight into the TypedDicts, kept, avoids that); pydantic's
own JSON parsing (77 us); forking the worker before the suite loads (each process then
loads it: no faster); structural checks of every line of a v2 log on the fast path (the
last line's chain already covers those bytes; 35-45 us).

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
from scoring_bounds import checks_only_all, read_and_chain, read_only, read_parse_chain
from scoring_workload import (  # benches beside it, not a package
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
from taurec.tasks.trajectory.signing import LogKey

__all__ = ["BENCH_KEY", "TAU_REC", "bench_suite", "write_logs"]  # bench/log_bytes.py uses them

#: row -> the least ratio to τ-Rec's rate it must reach
#: The targets hold for `evaluator score` with every check on: the chain, the events'
#: validation, the HMAC (--verify) and replay where it is needed (logs not signed by the
#: server's key). Without a key to verify with, the rows without --verify stand in.
TARGETS = {"verify1": 1.0, "verifyN": 2.0}
#: The same, on logs the server wrote (--logs): one process against τ-Rec's rate.
SERVER_LOG_TARGETS = {"verify1": 1.5}
#: The rows without --verify that stand in for the targets' rows when there is no key.
UNVERIFIED = {"verify1": "score1", "verifyN": "scoreN"}


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
    if verify_key is None:
        targets = {UNVERIFIED[k]: g for k, g in targets.items()}
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
        keys = ("read", "chain", "parse", "tau", "tau_loaded", "ceil1", "ceilN")
        times: dict[str, list[float]] = {k: [] for k in keys}
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
            if theirs is not None and tau_rec is not None:
                t0 = time.perf_counter()  # as ours below: its catalog and tasks loaded too
                TauRecEvaluator(tau_rec).score(traces)
                times["tau"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                theirs.score(traces)
                times["tau_loaded"].append(time.perf_counter() - t0)
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
            for name, workers in (("ceil1", 1), ("ceilN", n)):  # fresh: the suite loads
                t0 = time.perf_counter()
                resolver = Resolver(verify_key=verify_key, allowed_specs=specs)
                bad = max(bad, checks_only_all(files, resolver, workers))
                times[name].append(time.perf_counter() - t0)
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
            row("tau_loaded", "  the same, its catalog and tasks loaded beforehand (untimed)")
        row("score1", "evaluator score, 1 process (replays every log)")
        row("scoreN", f"evaluator score, {n} processes")
        if "verify1" in rate:
            row("verify1", "evaluator score --verify, 1 process (every check; signed: no replay)")
            row("verifyN", f"evaluator score --verify, {n} processes")
        row("ceil1", "ceiling: every check and the suite's load, nothing scored, 1 process")
        row("ceilN", f"  the same, {n} processes")
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
            named = {
                "score1": "one process",
                "scoreN": f"{n} processes",
                "verify1": "--verify, one process",
                "verifyN": f"--verify, {n} processes",
            }
            goals = ", ".join(
                f"{named[k]} {vs_tau[k]:.2f}x (target >= {g:.1f}x)" for k, g in targets.items()
            )
            console.print(f"evaluator score against τ-Rec's rate: {goals}")
            ceiling = {k: vs_tau["ceilN" if k.endswith("N") else "ceil1"] for k in targets}
            under = [
                f"{named[k]} at {vs_tau[k]:.2f}x of τ-Rec's rate, under {g:.1f}x"
                + (
                    f" (with nothing scored, {ceiling[k]:.2f}x: no faster scoring reaches it)"
                    if ceiling[k] < g
                    else ""
                )
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
