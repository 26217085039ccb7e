"""The order a run hands out episodes: plan order, never two trials of one task in flight,
so an honest run with trials > 1 and concurrency > 1 is never refused by a sealed server
(which plays one trial of a task at a time)."""

from __future__ import annotations

from pathlib import Path

import anyio
import orjson
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.clients.runner.plan import EpisodeSpec, plan
from taurec.clients.runner.trial_queue import TrialQueue
from taurec.tasks.runs.register import REGISTER_NAME
from taurec.tasks.suite import load_suite


def _drain(queue: TrialQueue) -> list[EpisodeSpec]:
    taken = []
    while (spec := queue.take()) is not None:
        taken.append(spec)
    return taken


def test_free_tasks_go_in_plan_order() -> None:
    specs = plan(["a", "b", "c"], 2)
    queue = TrialQueue(specs)
    assert _drain(queue) == specs[:3]
    assert len(queue) == 3


def test_a_task_with_a_trial_in_flight_is_skipped_for_the_next_task() -> None:
    queue = TrialQueue([EpisodeSpec("a", 0), EpisodeSpec("a", 1), EpisodeSpec("b", 0)])
    assert _drain(queue) == [EpisodeSpec("a", 0), EpisodeSpec("b", 0)]


def test_a_finished_trial_lets_its_tasks_next_trial_go() -> None:
    queue = TrialQueue(plan(["a"], 3))
    first = queue.take()
    assert first == EpisodeSpec("a", 0) and queue.take() is None
    queue.done(first)
    assert queue.take() == EpisodeSpec("a", 1)


async def test_many_workers_never_play_two_trials_of_one_task_at_once() -> None:
    queue = TrialQueue(plan(["a", "b"], 4))
    playing: list[str] = []
    overlaps: list[str] = []
    finished: list[EpisodeSpec] = []

    async def worker() -> None:
        while (spec := await queue.next()) is not None:
            if spec.task_id in playing:
                overlaps.append(spec.task_id)
            playing.append(spec.task_id)
            await anyio.sleep(0.001)
            playing.remove(spec.task_id)
            finished.append(spec)
            queue.done(spec)

    async with anyio.create_task_group() as tg:
        for _ in range(6):  # more workers than tasks: the extra ones wait, then leave
            tg.start_soon(worker)
    assert overlaps == [] and sorted(finished) == sorted(plan(["a", "b"], 4))


def test_an_honest_sealed_ranking_run_with_trials_and_concurrency_is_never_refused(
    tmp_path: Path,
) -> None:
    tasks = [t.id for t in load_suite("ranking:builtin").tasks[:2]]
    out = tmp_path / "logs"
    args = ["run", "--suite", "ranking:builtin", "--agent", "cf", "--tasks", ",".join(tasks)]
    result = CliRunner().invoke(
        app, [*args, "--trials", "3", "--concurrency", "4", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "never started" not in result.output  # what a refused start would leave
    (register,) = out.rglob(REGISTER_NAME)
    records = [orjson.loads(line) for line in register.read_bytes().splitlines()]
    ends = [r for r in records if r["type"] == "end"]
    assert len(ends) == 6 and {r["reason"] for r in ends} == {"recommended"}
    assert all(r.get("attempt") == 1 for r in records if r["type"] == "start")
