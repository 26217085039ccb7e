"""A sealed run plays one trial of a task at a time (server/open_limits.py), for every kind
(recommendation, ranking, ppr, stream): two trials side by side would pool their budgets
(20 tool calls behind one ranking, a user's answers told twice) while each log shows one.
Over MCP in memory, where the one plan served is the caller's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import orjson
import pytest
from mcp import Client
from support.ppr import write_pair_suite
from support.ranking import write_ranking_suite
from support.shutdown_cuts import plan_file

from taurec.clients.agents.base import ToolOutcome, outcome_of
from taurec.server.app import build_server
from taurec.server.open_limits import OpenLimits
from taurec.server.settings import ServerSettings
from taurec.tasks.errors import EpisodeError
from taurec.tasks.runs.register import REGISTER_NAME, read_register
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.signing import load_log_key


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("suites")
    return {
        "ranking": str(write_ranking_suite(folder / "ranking", n=3)),
        "ppr": str(write_pair_suite(folder / "ppr")),
        "stream": "stream:builtin",
        "recommendation": "builtin",
    }


@asynccontextmanager
async def _client(spec: str, log_dir: Path, sealed: bool = True) -> AsyncIterator[Client]:
    plans = (plan_file(spec, log_dir.parent),) if sealed else ()
    settings = ServerSettings(suite=spec, log_dir=log_dir, run_label="r", plans=plans)
    async with Client(build_server(settings)) as client:
        yield client


async def _start(client: Client, task_id: str, trial: int) -> ToolOutcome:
    arguments = {"task_id": task_id, "trial": trial}
    return outcome_of(await client.call_tool("start_episode", arguments))


async def _abort(client: Client, started: ToolOutcome) -> None:
    arguments = {"episode_id": started.data["episode_id"], "reason": "agent_error"}
    assert not outcome_of(await client.call_tool("abort_episode", arguments)).is_error


def _first_task(spec: str) -> str:
    return load_suite(spec).tasks[0].id


@pytest.mark.parametrize("kind", ["recommendation", "ranking", "ppr", "stream"])
async def test_a_second_open_trial_of_a_task_is_refused(
    suites: dict[str, str], tmp_path: Path, kind: str
) -> None:
    task = _first_task(suites[kind])
    async with _client(suites[kind], tmp_path / "logs") as client:
        first = await _start(client, task, 0)
        second = await _start(client, task, 1)
    assert not first.is_error, first.text
    assert second.is_error and "\n" not in second.text
    assert f"task {task!r} already has an open trial (trial 0, episode " in second.text
    assert "finish that episode (or abort_episode it) before starting another" in second.text


@pytest.mark.parametrize("kind", ["recommendation", "ranking", "ppr", "stream"])
async def test_a_trial_after_the_first_ended_is_accepted(
    suites: dict[str, str], tmp_path: Path, kind: str
) -> None:
    task = _first_task(suites[kind])
    async with _client(suites[kind], tmp_path / "logs") as client:
        first = await _start(client, task, 0)
        assert (await _start(client, task, 1)).is_error  # the refusal uses nothing up
        await _abort(client, first)
        second = await _start(client, task, 1)
    assert not second.is_error, second.text
    assert second.data["trial"] == 1


async def test_trials_of_other_tasks_may_be_open_beside_it(
    suites: dict[str, str], tmp_path: Path
) -> None:
    tasks = load_suite(suites["ranking"]).tasks
    async with _client(suites["ranking"], tmp_path / "logs") as client:
        assert not (await _start(client, tasks[0].id, 0)).is_error
        other = await _start(client, tasks[1].id, 1)
    assert not other.is_error, other.text


async def test_two_concurrent_trials_cannot_pool_twenty_tool_calls(
    suites: dict[str, str], tmp_path: Path
) -> None:
    """The attack: open trials 0 and 1 of one task, spend 10 calls in each, submit the
    ranking both taught. Trial 1 cannot start until trial 0 has ended, so every submitted
    ranking has at most one episode's 10 calls behind it."""
    spec = suites["ranking"]
    task = load_suite(spec).tasks[0]
    log_dir = tmp_path / "logs"
    async with _client(spec, log_dir) as client:
        first = await _start(client, task.id, 0)
        episode_id = first.data["episode_id"]
        refusals = [(await _start(client, task.id, 1)).is_error]
        for _ in range(task.tool_budget):
            call = await client.call_tool("get_user_profile", {"episode_id": episode_id})
            assert not call.is_error
            refusals.append((await _start(client, task.id, 1)).is_error)
        ranking = {"episode_id": episode_id, "ranking": list(task.candidates[:10])}
        assert not (await client.call_tool("submit_ranking", ranking)).is_error
        second = await _start(client, task.id, 1)
    assert refusals == [True] * (task.tool_budget + 1)
    assert not second.is_error, second.text
    (register,) = log_dir.rglob(REGISTER_NAME)
    records = [orjson.loads(line) for line in register.read_bytes().splitlines()]
    story = [(r["type"], r.get("trial", r.get("episode_id"))) for r in records[1:]]
    assert story == [("start", 0), ("end", episode_id), ("start", 1)]
    assert read_register(register.read_bytes(), load_log_key()).problem is None


async def test_open_mode_lets_trials_of_a_task_run_side_by_side(
    suites: dict[str, str], tmp_path: Path
) -> None:
    """Open mode can replay any task at will, so the rule would defend nothing there (and
    RL harnesses play a task's rollouts side by side)."""
    task = _first_task(suites["ranking"])
    async with _client(suites["ranking"], tmp_path / "logs", sealed=False) as client:
        assert not (await _start(client, task, 0)).is_error
        second = await _start(client, task, 1)
    assert not second.is_error, second.text


def test_each_plan_holds_its_own_open_trials() -> None:
    limits = OpenLimits(max_open=10, max_per_owner=10)
    limits.opened("e1", "plan:a", "t1", 0)
    limits.check("plan:b", "t1")  # another contestant's trial of the same task: no bar
    limits.check("plan:a", "t2")
    with pytest.raises(EpisodeError, match="trial 0, episode e1"):
        limits.check("plan:a", "t1")
    limits.closed("e1")
    limits.check("plan:a", "t1")
