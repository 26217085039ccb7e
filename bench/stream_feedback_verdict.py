"""How often "learns from feedback" fires for agents that do not learn: the verdict's
false-positive rate on the built-in stream suite, beside the plain slope's.

    python bench/stream_feedback_verdict.py                  # 400 replications each, 20 of the learner
    python bench/stream_feedback_verdict.py --reps 100 --learner 10

Each replication plays every stream of the suite twice, once as the run and once as its
control (feedback withheld), with independent randomness in the two arms, and scores
them with the evaluator's own functions (`stream_summary` for "improves", the paired
`contrast_report` for "learns from feedback"). Policies that never read feedback:

- random: a uniformly random item of each choice set;
- noisy schedule: in episode k of E, half the time the item ranked E + 1 − k by utility
  (so its regret falls with the episode index), otherwise a random item.

Their picks do not depend on the feedback, so the run and the control differ only by
chance: every time the verdict fires is a false positive. The nominal rate is 2.5% (the
verdict needs the 95% interval wholly below 0, one side of it). `--learner N` adds N
replications of the learning reference agent (its seeds varied) for the verdict's power.
Prints the rates with 95% Wilson intervals, overall and per setting.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

from taurec.clients.agents.stream.learner import BayesianStreamLearner
from taurec.clients.agents.stream.play import play_local
from taurec.evaluator.stream.contrast import contrast_report
from taurec.evaluator.stream.metrics import EpisodeOutcome, score_choice, stream_summary
from taurec.tasks.stream.protocol import FeedbackMode, StreamProtocol
from taurec.tasks.stream.task import StreamTask
from taurec.tasks.suite import load_suite

#: per task: (setting, regret by episode)
Arm = dict[str, dict[str, Any]]
Picker = Callable[[StreamTask, int, random.Random], list[float]]


def random_picks(task: StreamTask, rep: int, rng: random.Random) -> list[float]:
    return [e.best - e.utilities[rng.choice(e.item_ids)] for e in task.episodes]


def noisy_schedule(task: StreamTask, rep: int, rng: random.Random) -> list[float]:
    out = []
    for k, e in enumerate(task.episodes, start=1):
        ranked = e.ranked()
        target = min(max(0, len(task.episodes) - k), len(ranked) - 1)  # the best last
        item = ranked[target] if rng.random() < 0.5 else rng.choice(ranked)
        out.append(e.best - e.utilities[item])
    return out


def arm(tasks: list[StreamTask], picker: Picker, rep: int, seed: str) -> Arm:
    rng = random.Random(f"{seed}:{rep}")
    return {t.id: {"setting": t.setting.value, "regret": picker(t, rep, rng)} for t in tasks}


def learner_arm(tasks: list[StreamTask], rep: int, feedback: FeedbackMode) -> Arm:
    out: Arm = {}
    for t in tasks:
        protocol = StreamProtocol(feedback=feedback)
        learner = BayesianStreamLearner(rep, t.id, 0)
        session = asyncio.run(play_local(t, learner, seed=rep, protocol=protocol))
        regrets = [
            score_choice(n + 1, session.played(n).utilities, session.chosen[n], 0).regret
            for n in range(len(t.episodes))
        ]
        out[t.id] = {"setting": t.setting.value, "regret": regrets}
    return out


def improves(run: Arm, setting: str | None) -> bool:
    streams = [
        [
            EpisodeOutcome(k + 1, r, None, 0.0, 1, 0)  # only the regret counts here
            for k, r in enumerate(v["regret"])
        ]
        for v in run.values()
        if setting is None or v["setting"] == setting
    ]
    return bool(stream_summary(streams, seed=0)["improves"])


def wilson(hits: int, n: int) -> str:
    if n == 0:
        return "-"
    p, z = hits / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (
        f"{100 * p:5.1f}%  [{100 * max(0, centre - half):.1f}, {100 * min(1, centre + half):.1f}]"
    )


def tally(pairs: list[tuple[Arm, Arm]], settings: list[str]) -> dict[str, tuple[int, int, int]]:
    """Per scope: (learns-from-feedback verdicts, improves verdicts of the run, n)."""
    counts = {s: [0, 0, 0] for s in ["overall", *settings]}
    for rep, (run, control) in enumerate(pairs):
        report = contrast_report(run, control, seed=rep)
        for scope in counts:
            c = report if scope == "overall" else report["by_setting"][scope]
            counts[scope][0] += bool(c["learns_from_feedback"])
            counts[scope][1] += improves(run, None if scope == "overall" else scope)
            counts[scope][2] += 1
    return {k: (a, b, n) for k, (a, b, n) in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="stream:builtin")
    parser.add_argument("--reps", type=int, default=400, help="replications per policy")
    parser.add_argument("--learner", type=int, default=20, help="learner replications (power)")
    args = parser.parse_args()
    tasks = [t for t in load_suite(args.suite).tasks if isinstance(t, StreamTask)]
    settings = sorted({t.setting.value for t in tasks})
    console = Console(width=130)
    console.print(f"{args.suite}: {len(tasks)} streams; {args.reps} replications per policy")
    table = Table("policy", "scope", "learns from feedback", "improves (slope)", "seconds/rep")
    runs: list[tuple[str, Callable[[int], tuple[Arm, Arm]], int]] = [
        (
            "random",
            lambda r: (arm(tasks, random_picks, r, "run"), arm(tasks, random_picks, r, "ctl")),
            args.reps,
        ),
        (
            "noisy schedule",
            lambda r: (arm(tasks, noisy_schedule, r, "run"), arm(tasks, noisy_schedule, r, "ctl")),
            args.reps,
        ),
        (
            "learner (power)",
            lambda r: (
                learner_arm(tasks, r, FeedbackMode.TASK),
                learner_arm(tasks, r, FeedbackMode.NONE),
            ),
            args.learner,
        ),
    ]
    for name, make, reps in runs:
        if reps <= 0:
            continue
        began = time.perf_counter()
        pairs = [make(r) for r in range(reps)]
        counts = tally(pairs, settings)
        per_rep = (time.perf_counter() - began) / reps
        for scope, (learns, imp, n) in counts.items():
            table.add_row(name, scope, wilson(learns, n), wilson(imp, n), f"{per_rep:.2f}")
    console.print(table)
    console.print(
        "A false positive is any 'learns from feedback' for random or the noisy schedule "
        "(nominal 2.5%); 'improves' for the noisy schedule is by construction."
    )


if __name__ == "__main__":
    main()
