"""Scores do not depend on machine load: the same agents on the same tasks and seeds get
the same verdicts on a quiet machine and on a loaded one.

A loaded machine is made three ways at once: busy processes take the cores, the pool has
one catalog thread (so every episode's searches queue behind the others'), and every
search and filter is held 50 ms in its thread without using the CPU, as a thread the
system has descheduled is. The work budget is set to 20 ms, less than that hold: a
budget that counted waiting (as one did before) refuses nearly every call under this
load, while the work itself, a few milliseconds of CPU, stays well within it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from taurec.clients.agents.recommendation.baselines import PopularityAgent, RandomAgent
from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import EpisodeSpec
from taurec.clients.runner.runner import Runner
from taurec.evaluator.logs import Resolver, score_paths
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation import catalog_tools as ct
from taurec.tasks.trajectory.reader import read_log

TASKS = [f"t{n:03d}" for n in range(1, 9)]
HOLD_SECONDS = 0.05


@contextmanager
def _busy_cores() -> Iterator[None]:
    """Two processes spinning on the CPU while the block runs."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield
    for spinner in spinners:
        spinner.kill()
        spinner.wait()


def _held(tool: Callable[..., Any], held: list[str]) -> Callable[..., Any]:
    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(HOLD_SECONDS)  # descheduled: wall time passes, no work is done
        held.append(tool.__name__)
        return tool(*args, **kwargs)

    return slow


async def _play(out: Path, **settings: Any) -> dict[tuple[str, str, int], tuple[Any, ...]]:
    """Each agent on every task, one trial, seeded: (label, task, trial) -> the verdicts
    and everything the agent was shown."""
    specs = [EpisodeSpec(task, 0) for task in TASKS]
    for agent in (RandomAgent(seed=3), PopularityAgent(), ScriptedAgent()):
        folder = out / agent.label
        server = ServerSettings(log_dir=folder, run_label="load", **settings)
        runner = Runner(
            agent, Connection("inproc", server), folder, "load", seed=7, handle_signals=False
        )
        report = await runner.run(specs)
        assert report.failure is None, report.failure
    verdicts = {}
    for score in score_paths([out], Resolver()):
        seen = [
            (e["is_error"], e.get("refused", False), e["content"])
            for e in read_log(score.path).events
            if e["type"] == "tool_result"
        ]
        key = (score.label, score.task_id, score.trial)
        verdicts[key] = (
            score.passed,
            score.reward,
            score.end_reason,
            score.outcome,
            score.item_id,
            score.infra_error,
            seen,
        )
    return verdicts


async def test_a_loaded_machine_gives_the_verdicts_of_a_quiet_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quiet = await _play(tmp_path / "quiet")
    held: list[str] = []
    monkeypatch.setattr(ct, "search_catalog", _held(ct.search_catalog, held))
    monkeypatch.setattr(ct, "filter_catalog", _held(ct.filter_catalog, held))
    with _busy_cores():
        loaded = await _play(
            tmp_path / "loaded", catalog_workers=1, catalog_workers_per_client=1,
            catalog_call_seconds=HOLD_SECONDS / 2.5,
        )  # fmt: skip
    assert len(quiet) == 3 * len(TASKS)
    changed = sorted(key for key in quiet if loaded.get(key) != quiet[key])
    assert changed == []
    assert len(held) > 3 * len(TASKS)  # the load reached the catalog calls
    refused = [s for v in loaded.values() for s in v[-1] if s[1]]
    assert refused == []
