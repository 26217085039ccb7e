"""How fast the ranking kind is scored: per episode against pytrec_eval, and aggregated
(means and pass^k with bootstrap intervals) at 50,000 episodes of one label.

The logs are written by the taurec server (`taurec run --suite ranking:builtin --agent
scripted --trials N`, offline, in process, signed with a bench key). Per episode, in one
run and in alternating order (--repeats rounds): `evaluator score`'s path on each log
(read, validate every field, the chain, score), against
pytrec_eval reading a TREC qrels file and run file of the same rankings and evaluating
success@1,5,10 and ndcg_cut@5,10 (Hit@K and NDCG@K): CPU microseconds per episode, their
ratio (target: within 5x), and on how many episodes the two agree on every value.

Aggregation: the logs' scores copied to --episodes episodes of one label over --tasks
tasks, then `aggregate_ranking` once in a fresh process (`--child`): its CPU and wall
seconds, the process's peak RSS and the RSS it started from (targets: 2 s, 300 MB peak).

    python bench/ranking_scoring_speed.py --trials 5 --repeats 5 --episodes 50000 --tasks 5000
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scoring_workload import server_logs  # a bench beside it, not a package

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import Resolver, find_logs, score_files
from taurec.tasks.trajectory.reader import read_log

AGGREGATE_TARGET_S = 2.0
AGGREGATE_TARGET_MB = 300.0
PER_EPISODE_TARGET = 5.0
MEASURES = {"success_1": "hit@1", "success_5": "hit@5", "success_10": "hit@10"}
MEASURES |= {"ndcg_cut_5": "ndcg@5", "ndcg_cut_10": "ndcg@10"}


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def trec_files(files: list[Path], tmp: Path) -> tuple[Path, Path]:
    """The logs' rankings as a TREC run file and their positives as a qrels file (one
    query per episode)."""
    from taurec.tasks.suite import load_suite

    suite = load_suite("ranking:builtin")
    qrels, run = [], []
    for f in files:
        log = read_log(f)
        assert log.header is not None, f
        task = suite.get(log.header.task_id)
        assert task is not None
        q = log.header.episode_id
        qrels.append(f"{q} 0 {task.positive} 1")
        submitted = next(e for e in log.events if e.get("name") == "submit_ranking")
        for rank, doc in enumerate(submitted["arguments"]["ranking"], 1):
            run.append(f"{q} Q0 {doc} {rank} {100 - rank} bench")
    (tmp / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp / "run").write_text("\n".join(run) + "\n")
    return tmp / "qrels", tmp / "run"


def pytrec(qrels: Path, run: Path) -> dict[str, dict[str, float]]:
    """pytrec_eval from the files: parse both, evaluate every measure."""
    import pytrec_eval

    with qrels.open() as q, run.open() as r:
        judged, ranked = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)
    measures = {"success.1,5,10", "ndcg_cut.5,10"}
    return dict(pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(ranked))


def per_episode(files: list[Path], repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = trec_files(files, Path(tmp))
        ours, theirs = [], []
        for _ in range(repeats):
            for which in ("ours", "theirs"):
                t0 = time.process_time()
                if which == "ours":
                    scores = score_files(files, Resolver())
                    ours.append(time.process_time() - t0)
                else:
                    values = pytrec(qrels, run)
                    theirs.append(time.process_time() - t0)
    agree = sum(
        all(abs(values[s.episode_id or ""][m] - s.metrics[k]) < 1e-12 for m, k in MEASURES.items())
        for s in scores
    )
    a, b = (statistics.median(v) / len(files) * 1e6 for v in (ours, theirs))
    print(
        f"per episode ({len(files):,} ranking logs, CPU, median of {repeats}): evaluator "
        f"score {a:.1f} us (read, validate every field, the chain, score), "
        f"pytrec_eval from files {b:.1f} us: {a / b:.1f}x (target <= {PER_EPISODE_TARGET:g}x); "
        f"values agree on {agree:,} of {len(files):,}"
    )


def widened(scores: list[EpisodeScore], episodes: int, tasks: int) -> list[EpisodeScore]:
    """`episodes` copies of the scores, one label, `tasks` task ids, trials numbered."""
    return [
        dataclasses.replace(
            scores[i % len(scores)], label="bench", task_id=f"t{i % tasks}", trial=i // tasks
        )
        for i in range(episodes)
    ]


def child(logs: Path, episodes: int, tasks: int) -> None:
    from taurec.evaluator.ranking.scoring import aggregate_ranking

    scores = widened(score_files(find_logs([logs]), Resolver()), episodes, tasks)
    start = _rss_mb()
    c0, t0 = time.process_time(), time.perf_counter()
    aggregate_ranking("bench", scores, 0)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"cpu": cpu, "wall": wall, "peak_mb": peak, "start_mb": start}))


def aggregation(logs: Path, episodes: int, tasks: int) -> None:
    cmd = [sys.executable, __file__, "--child", str(logs)]
    cmd += ["--episodes", str(episodes), "--tasks", str(tasks)]
    got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    print(
        f"aggregate_ranking, {episodes:,} episodes of one label over {tasks:,} tasks: "
        f"{got['cpu']:.2f} s CPU, {got['wall']:.2f} s wall (target {AGGREGATE_TARGET_S:g} s); "
        f"process peak RSS {got['peak_mb']:.0f} MB (target {AGGREGATE_TARGET_MB:g} MB), "
        f"{got['start_mb']:.0f} MB before aggregating"
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--episodes", type=int, default=50_000)
    ap.add_argument("--tasks", type=int, default=5_000)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        return child(args.child, args.episodes, args.tasks)
    with tempfile.TemporaryDirectory(prefix="taurec-bench-") as tmp:
        out, _ = server_logs(Path(tmp), "ranking:builtin", ["scripted"], args.trials)
        files = find_logs([out])
        print(f"load average {os.getloadavg()[0]:.1f}")
        per_episode(files, args.repeats)
        aggregation(out, args.episodes, args.tasks)
        print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
