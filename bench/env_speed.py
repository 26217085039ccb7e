"""Rollouts per second of the in-process environments (clients/envs), one kind at a time,
with the scripted policy (clients/envs/scripted.py), beside the same policy played over
MCP by the harness (`run_agent`, in process and as a `taurec serve` subprocess).

    python bench/env_speed.py                 # every kind, medians of 3 runs
    python bench/env_speed.py --kinds ranking --runs 5

Each figure is the median of `--runs` timed runs of the same episodes (the first tasks of
the kind's built-in suite), after one untimed warm-up; every rollout writes its log and is
scored by the evaluator, as in training. The MCP path runs the harness with its default
concurrency (8), each timed run a whole `run_agent` call (its server's start included);
`TaurecEnv` plays one episode at a time on a host built once; `VectorEnv` plays groups of
G trials of one task.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from taurec.clients.agents.base import Episode
from taurec.clients.envs import EnvHost, TaurecEnv, VectorEnv
from taurec.clients.envs.scripted import ScriptedPolicy
from taurec.clients.runner.programmatic import run_agent
from taurec.tasks.shipped import BUILTIN_BY_KIND

SUITES = {kind: BUILTIN_BY_KIND[kind] for kind in ("ranking", "recommendation", "stream")}
EPISODES = {"ranking": 64, "recommendation": 64, "stream": 16}


def _single(host: EnvHost, tasks: list[str]) -> None:
    env = TaurecEnv(host)
    policy = ScriptedPolicy(host.kind)
    for task in tasks:
        obs, done = env.reset(task), False
        policy.reset()
        while not done:
            obs, _, done, _ = env.step(policy.act(obs))


def _vector(host: EnvHost, tasks: list[str], g: int) -> None:
    vec = VectorEnv(host, n=g)
    for task in tasks[: max(1, len(tasks) // g)]:
        policies = [ScriptedPolicy(host.kind) for _ in range(g)]
        observations = vec.reset(task)
        while not all(vec.done):
            actions = [
                None if done else p.act(o)
                for p, o, done in zip(policies, observations, vec.done, strict=True)
            ]
            observations = [r.observation for r in vec.step(actions)]


class PolicyAgent:
    """The scripted policy as a harness agent: the same actions, sent over MCP."""

    label = "scripted-policy"

    def __init__(self, kind: str) -> None:
        self.kind = kind

    async def run(self, episode: Episode) -> None:
        policy = ScriptedPolicy(self.kind)
        obs = episode.opening
        if self.kind == "stream":
            obs = f"{obs}\n\n{(await episode.call('current_episode')).text}"
        while not episode.ended:
            action: Any = policy.act(obs)
            if isinstance(action, str) and self.kind == "recommendation":
                obs = (await episode.say(action)).text
            elif isinstance(action, str):  # a ranking answer
                ids = _answer_ids(episode.opening, action)
                obs = (await episode.call("submit_ranking", ranking=ids)).text
            else:
                obs = (await episode.call(action["name"], **action["arguments"])).text


def _answer_ids(opening: str, answer: str) -> list[str]:
    ids = [line.split("[", 1)[1].split("]", 1)[0] for line in opening.splitlines() if ". [" in line]
    picked = answer.split("{[", 1)[1].split("]}", 1)[0]
    return [ids[int(i) - 1] for i in picked.split(",")]


def _mcp(kind: str, tasks: list[str], trials: int, transport: str) -> None:
    with tempfile.TemporaryDirectory() as out:
        run_agent(
            PolicyAgent(kind), suite=SUITES[kind], tasks=tasks, trials=trials, out=out,
            transport=transport, quiet=True,  # type: ignore[arg-type]
        )  # fmt: skip


def _rate(run: Callable[[], None], n: int, runs: int) -> float:
    run()  # warm-up
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        run()
        times.append(time.perf_counter() - began)
    return n / statistics.median(times)


def _kind(kind: str, args: argparse.Namespace) -> list[float]:
    n = EPISODES[kind]
    with tempfile.TemporaryDirectory() as logs, EnvHost(SUITES[kind], log_dir=Path(logs)) as host:
        ids = [task.id for task in host.suite.tasks]
        tasks = [ids[i % len(ids)] for i in range(n)]
        single = _rate(lambda: _single(host, tasks), n, args.runs)
        vector = _rate(lambda: _vector(host, tasks, args.group), n, args.runs)
    distinct = list(dict.fromkeys(tasks))
    trials = max(1, n // len(distinct))  # the same number of episodes over MCP
    played = len(distinct) * trials
    inproc = _rate(lambda: _mcp(kind, distinct, trials, "inproc"), played, args.runs)
    stdio = _rate(lambda: _mcp(kind, distinct, trials, "stdio"), played, args.runs)
    return [single, vector, inproc, stdio]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="+", default=list(SUITES), choices=list(SUITES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--group", type=int, default=8, help="G of the vectorised form")
    args = parser.parse_args()
    table = Table(title="rollouts per second (median of runs; scripted policy)")
    for column in (
        "kind",
        "episodes",
        "TaurecEnv",
        f"VectorEnv G={args.group}",
        "MCP in process",
        "MCP stdio",
    ):
        table.add_column(column, justify="right")
    for kind in args.kinds:
        table.add_row(kind, str(EPISODES[kind]), *(f"{r:,.1f}" for r in _kind(kind, args)))
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
