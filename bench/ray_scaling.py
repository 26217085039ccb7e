"""Throughput of latency-bound episodes on Ray: 1, 2 and 4 workers, and the local backend.

    python bench/ray_scaling.py                    # 8 episodes, 1 s per step, 3 repeats
    python bench/ray_scaling.py --episodes 16 --step 0.5 --repeats 5

The agent is the scripted one, waiting `--step` seconds before each message it sends
(a stand-in for an LLM's latency), so an episode takes a few seconds of waiting and
little CPU. Ray starts a local cluster declaring 4 CPUs (the workers mostly sleep, so
this holds on a 2-core machine); each configuration plays the same episodes into a fresh
folder, after a warm-up that starts the worker processes. Printed: the median episodes
per second over the repeats, and each one's ratio to one Ray worker. Needs taurec[ray].
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from taurec.clients.agents.base import Agent, Episode, UserTurn
from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.backends import Backend, LocalBackend, RunJob
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.ray_backend import RayBackend
from taurec.clients.runner.sealing import local_plan
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite

LABEL = "scripted-slow"


class SlowAgent:
    """The scripted agent, `step` seconds slower per message it sends."""

    def __init__(self, step: float) -> None:
        self.label = LABEL
        self.step = step

    async def run(self, episode: Episode) -> None:
        say = episode.say

        async def slow_say(text: str) -> UserTurn:
            await anyio.sleep(self.step)
            return await say(text)

        episode.say = slow_say  # type: ignore[method-assign]
        await ScriptedAgent(LABEL).run(episode)


def slow_agent(step: float) -> Agent:
    return SlowAgent(step)


def one_run(backend: Backend, tasks: list[str], step: float, concurrency: int) -> float:
    """Episodes per second of one run of `tasks` x 1 trial into a fresh folder."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        specs = plan(tasks, 1)
        sealed, path = local_plan(out, LABEL, load_suite("builtin"), tasks, 1, specs, resume=False)
        settings = ServerSettings(
            log_dir=out, run_label=sealed.run_id, agent_label=LABEL, plans=(path.resolve(),)
        )
        job = RunJob(
            partial(slow_agent, step), Connection("inproc", settings), out, sealed.run_id,
            concurrency=concurrency, plan_path=path, handle_signals=False,
        )  # fmt: skip
        t0 = time.perf_counter()
        report = backend.run(job, specs)
        seconds = time.perf_counter() - t0
        failed = [r for r in report.results if r.score is None]
        if report.failure or len(report.results) != len(specs) or failed:
            raise SystemExit(f"run failed: {report.failure or failed[:1] or 'episodes missing'}")
        return len(specs) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--step", type=float, default=1.0, help="seconds per agent message")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import ray

    tasks = [t.id for t in load_suite("builtin").tasks][: args.episodes]
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ray_backend = RayBackend()
    one_run(ray_backend, tasks[:4], 0.0, 4)  # warm-up: four workers started and loaded
    configs: list[tuple[str, Backend, int]] = [
        ("ray", ray_backend, 1),
        ("ray", ray_backend, 2),
        ("ray", ray_backend, 4),
        ("local", LocalBackend(), 1),
        ("local", LocalBackend(), 4),
    ]
    rates: dict[tuple[str, int], list[float]] = {(n, c): [] for n, _, c in configs}
    for _ in range(args.repeats):
        for name, backend, concurrency in configs:
            rates[(name, concurrency)].append(one_run(backend, tasks, args.step, concurrency))
    ray.shutdown()
    base = statistics.median(rates[("ray", 1)])
    print(
        f"{len(tasks)} latency-bound episodes ({args.step:g} s per agent message), "
        f"median of {args.repeats} runs"
    )
    print(f"{'backend':<8} {'workers':>7} {'episodes/s':>11} {'vs 1 ray worker':>16}")
    for (name, concurrency), values in rates.items():
        median: Any = statistics.median(values)
        what = "workers" if name == "ray" else "at once"
        print(f"{name:<8} {concurrency:>7} {median:>11.3f} {median / base:>15.2f}x  ({what})")


if __name__ == "__main__":
    main()
