"""Soak for the ranking and stream kinds: 60 sealed episodes over Streamable HTTP from 12
concurrent, independent MCP sessions, each with its own plan's token, played by the
kind's reference agent (cf for ranking, the learner for streams).

As the recommendation soak (test_soak_http.py) checks: one complete, clean log per
episode under the header its client asked for, every call in a log naming that episode,
every run counted whole by the evaluator, nothing failed unseen in the server, and the
server's resident memory flat between a warm-up round and the end of the run.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from support.hang_guard import HANG_GUARD_S
from support.http_server import ServerProcess, http_server_process

from taurec.clients.agents.base import AgentSettings, Episode, outcome_of
from taurec.clients.agents.registry import make_agent
from taurec.clients.runner.connection import Connection, open_client
from taurec.evaluator.evaluate import evaluate
from taurec.evaluator.logs import Resolver
from taurec.tasks.runs.plan import PlannedEpisode, new_plan, write_plan
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

CLIENTS = 12
PER_CLIENT = 5
#: RSS growth allowed from the warm-up round to the end (memory kept per request or per
#: episode would exceed it; whole episodes of these kinds are 2-3 KiB).
MAX_GROWTH_KIB = 16 * 1024

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads the server's RSS from /proc (Linux)"
)


def _plans(spec: str, folder: Path) -> list[tuple[str, Path, list[tuple[str, int]]]]:
    """(token, plan path, its episodes) per client; every (task, trial) played once."""
    suite = load_suite(spec)
    tasks = [t.id for t in suite.tasks]
    out = []
    for c in range(CLIENTS):
        specs = [
            (tasks[g % len(tasks)], g // len(tasks))
            for g in range(c, CLIENTS * PER_CLIENT, CLIENTS)
        ]
        base = new_plan(
            label=f"soak-{c:02d}",
            suite_id=suite.id,
            suite_spec=spec,
            suite_sha256=suite.sha256(),
            catalog_sha256=suite.catalog.sha256(),
            task_ids=[specs[0][0]],
            trials=1,
        )
        sealed = base.model_copy(
            update={"episodes": [PlannedEpisode(task_id=t, trial=k) for t, k in specs]}
        )
        path = folder / f"soak-{c:02d}.plan.json"
        write_plan(sealed, path)
        out.append((sealed.token, path, specs))
    return out


async def _soak(
    server: ServerProcess, spec: str, kind: str, agent: str, plans: list
) -> tuple[list[tuple[str, str, int, str]], dict[str, int]]:
    """Every client plays one episode, waits for all the others (the RSS is read), then
    plays the rest; (episode id, task, trial, label) of every episode and the readings."""
    played: list[tuple[str, str, int, str]] = []
    rss: dict[str, int] = {}
    warm, all_warm, go = [0], anyio.Event(), anyio.Event()

    async def session(c: int) -> None:
        token, _, specs = plans[c]
        label = f"soak-{c:02d}"
        player = make_agent(agent, AgentSettings(label=label, suite=spec), kind)
        async with open_client(Connection("http", url=server.url, auth_token=token)) as client:
            tools = (await client.list_tools()).tools
            for i, (task_id, trial) in enumerate(specs):
                args = {"task_id": task_id, "trial": trial, "agent_label": label}
                started = outcome_of(await client.call_tool("start_episode", args))
                assert not started.is_error, started.text
                episode = Episode(
                    client=client,
                    episode_id=str(started.data["episode_id"]),
                    task_id=task_id,
                    opening=str(started.data["opening"]),
                    trial=trial,
                    tools=tools,
                )
                await player.run(episode)
                played.append((episode.episode_id, task_id, trial, label))
                if i == 0:
                    warm[0] += 1
                    if warm[0] == CLIENTS:
                        all_warm.set()
                    await go.wait()

    async def measure() -> None:
        await all_warm.wait()
        rss["after warm-up"] = server.rss_kib()
        go.set()

    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(measure)
            for c in range(CLIENTS):
                tg.start_soon(session, c)
    rss["after the run"] = server.rss_kib()
    return played, rss


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "kind", "agent"),
    [("ranking:builtin", "ranking", "cf"), ("stream:builtin", "stream", "learner")],
)
def test_sealed_http_episodes_of_the_kind_are_each_logged_exactly(
    tmp_path: Path, spec: str, kind: str, agent: str
) -> None:
    log_dir = tmp_path / "logs"
    plans = _plans(spec, tmp_path)
    plan_args = [arg for _, path, _ in plans for arg in ("--plan", str(path))]
    with http_server_process(log_dir, "--suite", spec, *plan_args) as server:
        played, rss = anyio.run(_soak, server, spec, kind, agent, plans)
        assert server.proc.poll() is None, server.stderr()
        assert "Traceback" not in server.stderr(), server.stderr()

    paths = sorted(log_dir.rglob("*.jsonl"))
    assert len(paths) == len(played) == CLIENTS * PER_CLIENT
    by_id = {}
    for path in paths:
        parsed = read_log(path)
        assert parsed.ok and parsed.header is not None, (path, parsed.problems)
        assert parsed.header.kind == kind and parsed.header.mode == "sealed"
        for e in parsed.events:
            if e["type"] == "tool_call":
                assert e["arguments"].get("episode_id", parsed.header.episode_id) == (
                    parsed.header.episode_id
                )
        by_id[parsed.header.episode_id] = parsed.header
    for episode_id, task_id, trial, label in played:
        header = by_id[episode_id]
        assert (header.task_id, header.trial, header.agent.label) == (task_id, trial, label)

    check = evaluate([log_dir], Resolver(suite=spec))
    assert check.clean, (check.problems, check.excluded[:3])
    assert sorted((r["label"], r["planned"], r["counted"]) for r in check.runs) == [
        (f"soak-{c:02d}", PER_CLIENT, PER_CLIENT) for c in range(CLIENTS)
    ]
    assert rss["after the run"] - rss["after warm-up"] < MAX_GROWTH_KIB
