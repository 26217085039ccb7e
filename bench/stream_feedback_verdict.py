"""How often "learns from feedback" fires for agents that do not learn from feedback, and
how often it fires for one that does: the verdict's false-positive rate and its power on
the built-in stream suite, measured with the evaluator's own functions.

    python bench/stream_feedback_verdict.py                 # 400 replications, 10 of the learner
    python bench/stream_feedback_verdict.py --reps 100 --learner 10 --trials 2

Each replication is one `taurec run --with-control` plan, played in process: every
stream gets 2 x `--trials` trials, each drawn at random to the run arm (the task's
feedback) or the control arm (`--control`: shuffled by default), each with its own seed
and episode order, and both arms are scored and paired by `compare_stream_groups` as
`evaluator score` pairs them. Agents held out from the verdict's design, none of which
learns from feedback, so that every verdict is a false positive:

- random: a uniformly random item of each choice set;
- noisy schedule: in episode k of E, half the time the item ranked E + 1 − k by utility
  (read from the answer key), otherwise a random one: "improves" by design;
- trial rule: the schedule on even trials, random on odd ones (a rule that differs
  between trials; a contestant sees its trial numbers);
- drift: the chance of picking the best item drifts over the episodes, by an amount
  drawn per replication and trial block and shared by every stream of the block (a
  provider whose quality changes during a run);
- view detector: the schedule when its view's feedback kind says feedback will come,
  random when it says `none`;
- form detector: the schedule until the feedback it hears looks withheld or scrambled
  (no feedback, or persona feedback that never gives a reason), random after;
- borrowed label: the noisy schedule plays the run arm and random the control arm under
  one label (the headers record two identities).

The detectors are also played against a labelled control (`--labelled` replications:
the control as logs recorded it before controls were blind: withheld feedback whose view
says `none` for the view detector, scrambled persona feedback with no reason for the
form detector), which they do detect. The "test alone" column is the permutation test
at its level without the design's checks (one agent, one plan, a blind control): with
`--control none` the detectors pass it, and only the blind-control rule stops them. `--learner N` adds N replications of the
learning reference agent (its seed varied): the verdict's power. The "improves" column
is the plain slope of the run arm; `--in-order` also plays random in the suite's own
episode order (no shuffle), where a trend built into the suite would show as "improves".
Prints each rate with a 95% Wilson interval, overall and per setting.
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

from taurec.clients.agents.stream.baselines import played_episode
from taurec.clients.agents.stream.learner import BayesianStreamLearner
from taurec.clients.agents.stream.play import Action, Dialogue, play_local
from taurec.evaluator.stream.contrast import compare_stream_groups
from taurec.evaluator.stream.metrics import EpisodeOutcome, score_choice, stream_summary
from taurec.evaluator.stream.verdict import ALPHA
from taurec.server.run_facts import derive_seed
from taurec.tasks.stream.protocol import FeedbackMode, StreamProtocol
from taurec.tasks.stream.task import StreamTask
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.format import AgentInfo

#: (task, trial, replication, stream seed) -> a policy for that stream
Make = Callable[[StreamTask, int, int, int], Any]
REASONLESS = ("", ".", "!")


class Schedule:
    """The noisy schedule; `rate` of its picks follow it, the rest are random."""

    def __init__(self, task: StreamTask, seed: int, rate: float = 0.5) -> None:
        self.task, self.rate = task, rate
        self.rng = random.Random(f"schedule:{seed}")

    def pick(self, view: dict[str, Any]) -> str:
        ranked = played_episode(self.task, view).ranked()
        k, n = int(view["episode"]), int(view["episodes"])
        target = min(max(0, n - k), len(ranked) - 1)
        return ranked[target] if self.rng.random() < self.rate else self.rng.choice(ranked)

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        return "recommend", self.pick(view)

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        return None


class Random(Schedule):
    def __init__(self, task: StreamTask, seed: int) -> None:
        super().__init__(task, seed, rate=0.0)


class Drift(Schedule):
    """Picks the best item with a chance that moves with the episode by `slope` per
    episode (shared by every stream of its replication and trial block)."""

    def __init__(self, task: StreamTask, seed: int, slope: float) -> None:
        super().__init__(task, seed)
        self.slope = slope

    def pick(self, view: dict[str, Any]) -> str:
        ranked = played_episode(self.task, view).ranked()
        chance = min(1.0, max(0.0, 0.3 + self.slope * (int(view["episode"]) - 5.5)))
        return ranked[0] if self.rng.random() < chance else self.rng.choice(ranked)


class ViewDetector(Schedule):
    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        if view.get("feedback_kind") == "none":
            return "recommend", self.rng.choice([str(i["id"]) for i in view["items"]])
        return "recommend", self.pick(view)


class FormDetector(Schedule):
    """Takes the run for a control once feedback is missing, or once every persona
    feedback heard (two or more) has had no reason after its opening sentence."""

    def __init__(self, task: StreamTask, seed: int) -> None:
        super().__init__(task, seed)
        self.heard: list[str | None] = []

    def control(self) -> bool:
        if any(f is None for f in self.heard):
            return True
        words = [f for f in self.heard if f and "Chosen score" not in f and "stars" not in f]
        return len(words) >= 2 and all(_reasonless(f) for f in words)

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        if self.control():
            return "recommend", self.rng.choice([str(i["id"]) for i in view["items"]])
        return "recommend", self.pick(view)

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        self.heard.append(feedback)


def _reasonless(feedback: str) -> bool:
    """Whether persona feedback is one sentence (its opener) and no reason."""
    from taurec.tasks.stream.feedback import OPENERS, PERFECT

    openers = {t for texts in OPENERS.values() for t in texts} | {PERFECT}
    return any(feedback.strip() == o for o in openers)


AGENTS: dict[str, Make] = {
    "random": lambda t, k, rep, seed: Random(t, seed),
    "noisy schedule": lambda t, k, rep, seed: Schedule(t, seed),
    "trial rule": lambda t, k, rep, seed: Schedule(t, seed) if k % 2 == 0 else Random(t, seed),
    "drift": lambda t, k, rep, seed: Drift(t, seed, random.Random(f"drift:{rep}:{k}").gauss(0, 0.05)),
    "view detector": lambda t, k, rep, seed: ViewDetector(t, seed),
    "form detector": lambda t, k, rep, seed: FormDetector(t, seed),
}  # fmt: skip
DETECTORS = ("view detector", "form detector")


async def play_arm(
    task: StreamTask, policy: Any, seed: int, protocol: StreamProtocol
) -> list[float]:
    session = await play_local(task, policy, seed=seed, protocol=protocol)
    return [
        score_choice(n + 1, session.played(n).utilities, session.chosen[n], 0).regret
        for n in range(len(task.episodes))
    ]


async def plan(
    tasks: list[StreamTask],
    make: Make,
    rep: int,
    trials: int,
    control: StreamProtocol,
    borrowed: Make | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One --with-control plan: the run and control groups as the evaluator has them.
    `borrowed`: another agent plays the control arm under the same label (its headers
    then record its own identity)."""
    run_protocol = control.model_copy(update={"feedback": FeedbackMode.TASK})
    arms: dict[str, dict[str, Any]] = {"run": {}, "control": {}}
    draw = random.Random(f"arms:{rep}")
    for task in tasks:
        controls = set(draw.sample(range(2 * trials), trials))
        for k in range(2 * trials):
            arm = "control" if k in controls else "run"
            seed = derive_seed(f"{task.id}:{rep}", k)
            protocol = control if arm == "control" else run_protocol
            player = borrowed if arm == "control" and borrowed is not None else make
            curve = await play_arm(task, player(task, k, rep, seed), seed, protocol)
            entry = arms[arm].setdefault(task.id, {"setting": task.setting.value, "trials": []})
            entry["trials"].append(curve)
    for by_task in arms.values():
        for v in by_task.values():
            v["regret"] = [sum(c) / len(c) for c in zip(*v["trials"], strict=True)]
    note = f" (feedback {control.feedback.value})"
    common = {"mode": "sealed", "plan_id": f"rep{rep}", "suite": {"sha256": "s"}}
    mine = AgentInfo(label="agent", kind="bench-agent").identity()
    theirs = AgentInfo(label="agent", kind="random").identity() if borrowed else mine
    return (
        {"label": "agent", **common, "agents": [mine], "by_task": arms["run"]},
        {"label": "agent" + note, **common, "agents": [theirs], "by_task": arms["control"]},
    )


def verdicts(
    run: dict[str, Any], control: dict[str, Any], rep: int
) -> dict[str, tuple[bool, bool]]:
    """Per scope: (the verdict, the permutation test alone at its level)."""
    compare_stream_groups([run, control], seed=rep)
    contrast = next(iter(run["feedback_contrast"].values()))

    def tested(p: float | None) -> bool:
        return p is not None and p <= ALPHA

    out = {"overall": (bool(run["learns_from_feedback"]), tested(contrast["family_p"]))}
    for s, c in contrast["by_setting"].items():
        least = min(
            (p for p in (c["adjusted_p"], c["regret_adjusted_p"]) if p is not None), default=None
        )
        out[s] = (bool(c["learns_from_feedback"]), tested(least))
    return out


def improves(by_task: dict[str, Any]) -> dict[str, bool]:
    def streams(setting: str | None) -> list[list[EpisodeOutcome]]:
        return [
            [EpisodeOutcome(k + 1, r, None, 0.0, 1, 0) for k, r in enumerate(curve)]
            for v in by_task.values()
            if setting is None or v["setting"] == setting
            for curve in v["trials"]
        ]

    settings = sorted({v["setting"] for v in by_task.values()})
    out = {"overall": bool(stream_summary(streams(None))["improves"])}
    return out | {s: bool(stream_summary(streams(s))["improves"]) for s in settings}


def mode_of(args: argparse.Namespace) -> FeedbackMode:
    """The control mode the form detector is shown against as logs once labelled it."""
    return FeedbackMode(args.control)


async def in_task_order(tasks: list[StreamTask], rep: int) -> dict[str, Any]:
    """Random played in each stream's own episode order (one trial per stream)."""
    out = {}
    for n, t in enumerate(tasks):
        curve = await play_arm(t, Random(t, rep * 7919 + n), rep, StreamProtocol())
        out[t.id] = {"setting": t.setting.value, "trials": [curve]}
    return out


def wilson(hits: int, n: int) -> str:
    if n == 0:
        return "-"
    p, z = hits / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    lo, hi = 100 * max(0, centre - half), 100 * min(1, centre + half)
    return f"{100 * p:5.1f}%  [{lo:.1f}, {hi:.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="stream:builtin")
    parser.add_argument("--reps", type=int, default=400, help="replications per agent")
    parser.add_argument("--learner", type=int, default=10, help="learner replications (power)")
    parser.add_argument("--trials", type=int, default=1, help="trials per arm")
    parser.add_argument("--control", choices=["shuffled", "none"], default="shuffled")
    parser.add_argument("--labelled", type=int, default=100, help="detector reps, old control")
    parser.add_argument("--in-order", type=int, default=400, help="random reps in task order")
    args = parser.parse_args()
    tasks = [t for t in load_suite(args.suite).tasks if isinstance(t, StreamTask)]
    console = Console(width=140)
    console.print(
        f"{args.suite}: {len(tasks)} streams; --with-control {args.control}, "
        f"{args.trials} trial(s) per arm; one-sided level 2.5%"
    )
    control = StreamProtocol(feedback=FeedbackMode(args.control), shuffle_order=True)
    table = Table(
        "agent", "control", "scope", "learns from feedback", "test alone (p ≤ 2.5%)",
        "improves (run arm)", "s/rep",
    )  # fmt: skip
    kind = "blind" if control.feedback.blind else "withheld"
    runs: list[tuple[str, str, Make, StreamProtocol, int, Make | None]] = [
        (name, f"{args.control} ({kind})", make, control, args.reps, None)
        for name, make in AGENTS.items()
    ]
    runs.append(
        (
            "borrowed label",
            f"{args.control}, played by random",
            AGENTS["noisy schedule"],
            control,
            args.reps,
            AGENTS["random"],
        )
    )
    for name, mode in (("view detector", FeedbackMode.NONE), ("form detector", mode_of(args))):
        old = StreamProtocol(feedback=mode, shuffle_order=True, labelled_control=True)
        shown = f"{mode.value} (labelled, old)"
        runs.append((name, shown, AGENTS[name], old, args.labelled, None))
    learner: Make = lambda t, k, rep, seed: BayesianStreamLearner(rep, t.id, k)  # noqa: E731
    shown = f"{args.control} ({kind})"
    runs.append(("learner (power)", shown, learner, control, args.learner, None))
    for name, shown, make, protocol, reps, borrowed in runs:
        if reps <= 0:
            continue
        began = time.perf_counter()
        counts: dict[str, list[int]] = {}
        for rep in range(reps):
            run, ctl = asyncio.run(plan(tasks, make, rep, args.trials, protocol, borrowed))
            imp = improves(run["by_task"])
            for scope, (fired, tested) in verdicts(run, ctl, rep).items():
                c = counts.setdefault(scope, [0, 0, 0, 0])
                c[0] += fired
                c[1] += tested
                c[2] += imp.get(scope, False)
                c[3] += 1
        per_rep = (time.perf_counter() - began) / reps
        for scope, (learns, tested_n, imp_n, n) in counts.items():
            table.add_row(
                name, shown, scope, wilson(learns, n), wilson(tested_n, n), wilson(imp_n, n),
                f"{per_rep:.2f}",
            )  # fmt: skip
    fired: dict[str, int] = {}
    for rep in range(args.in_order):
        by_task = asyncio.run(in_task_order(tasks, rep))
        for scope, hit in improves(by_task).items():
            fired[scope] = fired.get(scope, 0) + hit
    for scope, hits in fired.items():
        table.add_row("random, task order", "-", scope, "-", "-", wilson(hits, args.in_order), "")
    console.print(table)
    console.print(
        "Every 'learns from feedback' of an agent other than the learner is a false positive; "
        "'improves' is the plain slope (by construction for the schedules)."
    )


if __name__ == "__main__":
    main()
