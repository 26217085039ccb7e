"""Episodes a server's shutdown cuts off, for any kind, over MCP in memory: serve a suite
open or sealed (one plan, the caller's), play the first task's trial 0 as far as a test
says, stop the server (`close_all`), then read the end record, start the server again on
the same plan and log folder, and score the folder as `evaluator score` does."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
from mcp import Client
from typer.testing import CliRunner

from taurec.clients.agents.base import ToolOutcome, outcome_of
from taurec.evaluator.cli.main import app as evaluator
from taurec.server.kinds import SERVER_KINDS, KindService
from taurec.server.settings import ServerSettings
from taurec.tasks.runs.plan import new_plan, write_plan
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

#: What a test does in the episode before the server stops: (client, its episode id).
Act = Callable[[Client, str], Awaitable[None]]


def plan_file(spec: str, folder: Path) -> Path:
    """The contestant's plan (the suite's first two tasks, two trials each), written once:
    a restarted server serves the same plan."""
    path = folder / "contestant.plan.json"
    if not path.exists():
        suite = load_suite(spec)
        plan = new_plan(
            label="contestant",
            suite_id=suite.id,
            suite_spec=spec,
            suite_sha256=suite.sha256(),
            catalog_sha256=suite.catalog.sha256(),
            task_ids=[t.id for t in suite.tasks[:2]],
            trials=2,
        )
        write_plan(plan, path)
    return path


@asynccontextmanager
async def serving(spec: str, log_dir: Path, sealed: bool) -> AsyncIterator[tuple[Client, Any]]:
    """A server of the suite's kind (sealed: on the one plan of `plan_file`), its client
    and its service."""
    plans = (plan_file(spec, log_dir.parent),) if sealed else ()
    settings = ServerSettings(suite=spec, log_dir=log_dir, run_label="r", plans=plans)
    suite = load_suite(spec)
    mcp, service = SERVER_KINDS.get(suite.kind)(settings, suite, None)
    async with Client(mcp) as client:
        yield client, service


async def start(client: Client, task_id: str, trial: int = 0) -> ToolOutcome:
    arguments = {"task_id": task_id, "trial": trial}
    return outcome_of(await client.call_tool("start_episode", arguments))


async def cut_off(spec: str, log_dir: Path, sealed: bool, act: Act) -> dict[str, Any]:
    """Start trial 0 of the suite's first task, `act` in it, stop the server; the end
    record its log got."""
    task_id = load_suite(spec).tasks[0].id
    async with serving(spec, log_dir, sealed) as (client, service):
        started = await start(client, task_id)
        assert not started.is_error, started.text
        await act(client, started.data["episode_id"])
        kind_service: KindService = service
        assert await kind_service.close_all() == 1
    (path,) = log_dir.rglob("*.jsonl")
    end = read_log(path).events[-1]
    assert end["type"] == "end", end
    return end


async def start_again_after_restart(spec: str, log_dir: Path) -> ToolOutcome:
    """A new server on the same plan and log folder: the start of the cut trial."""
    async with serving(spec, log_dir, sealed=True) as (client, _):
        return await start(client, load_suite(spec).tasks[0].id)


def scored(log_dir: Path) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """`evaluator score <log_dir> --json` of one sealed run: its group, its run row (what
    its plan counted and failed), and its problems."""
    result = CliRunner().invoke(evaluator, ["score", str(log_dir), "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    (group,), (run,) = doc["groups"], doc["runs"]
    return group, run, doc["problems"]
