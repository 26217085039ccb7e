"""Memory per scored episode: what `evaluator score` keeps for each episode it scored,
against what τ-Rec v1.0's evaluator keeps (its `EvaluationResult` per trace).

The logs are written by the taurec server (`taurec run` over τ-Rec's release with the
scripted agent, signed with a bench key; or --logs); each side runs in a fresh process
(`--child`), loads what it needs and scores one log, then scores the logs over and over
(each pass a `score_files` call of its own, so no pass sees another's copies) up to
--episodes results kept in one list. It prints, per side, the RSS growth per episode,
the process's peak RSS and the growth in total.

    python bench/scoring_memory.py --episodes 50000
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scoring_workload import TAU_REC, TauRecEvaluator, server_logs, write_traces

from taurec.evaluator.logs import Resolver, find_logs, score_files
from taurec.tasks.suite import portable_suite_spec


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _kept(side: str, logs: Path, traces: Path, episodes: int) -> tuple[float, list[object]]:
    """The first pass untimed (loading), then results up to `episodes`."""
    if side == "ours":
        files = find_logs([logs])
        spec = portable_suite_spec(f"tau-rec:{TAU_REC}")
        resolver = Resolver(allowed_specs=frozenset({spec}))
        score_files(files[:1], resolver)
        start = _rss_mb()
        kept: list[object] = []
        while len(kept) < episodes:
            kept += score_files(files[: episodes - len(kept)], resolver)
    else:
        theirs = TauRecEvaluator(TAU_REC)
        paths = sorted(traces.glob("*.json"))
        theirs.results(paths[:1])
        start = _rss_mb()
        kept = []
        while len(kept) < episodes:
            kept += theirs.results(paths[: episodes - len(kept)])
    gc.collect()
    return start, kept


def child(side: str, logs: Path, traces: Path, episodes: int) -> None:
    start, kept = _kept(side, logs, traces, episodes)
    grown = _rss_mb() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"episodes": len(kept), "grown_mb": grown, "peak_mb": peak}))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--episodes", type=int, default=50_000)
    ap.add_argument("--trials", type=int, default=34)
    ap.add_argument("--logs", type=Path, help="logs of τ-Rec's release already written")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        side, logs, traces = args.child
        return child(side, Path(logs), Path(traces), args.episodes)
    with tempfile.TemporaryDirectory(prefix="taurec-bench-") as tmp:
        logs = args.logs
        if logs is None:
            logs, _ = server_logs(Path(tmp), f"tau-rec:{TAU_REC}", ["scripted"], args.trials)
        traces = Path(tmp) / "traces"
        write_traces(find_logs([logs]), traces)
        got = {}
        for side in ("ours", "tau-rec"):
            cmd = [sys.executable, __file__, "--episodes", str(args.episodes), "--child"]
            done = subprocess.run(
                [*cmd, side, str(logs), str(traces)], check=True, capture_output=True, text=True
            )
            got[side] = json.loads(done.stdout)
        for side, g in got.items():
            print(
                f"{side:8s}: {g['grown_mb'] * 2**20 / g['episodes']:,.0f} bytes per episode kept "
                f"({g['grown_mb']:.0f} MB for {g['episodes']:,}), process peak {g['peak_mb']:.0f} MB"
            )
        ratio = got["ours"]["grown_mb"] / got["tau-rec"]["grown_mb"]
        print(f"ours / τ-Rec's per episode: {ratio:.2f} (target <= 1.00)")


if __name__ == "__main__":
    main()
