"""Soak: 500 episodes over Streamable HTTP from 50 concurrent, independent MCP sessions,
in sealed mode.

One `taurec serve --transport http` subprocess serving 50 run plans; 50 separate
`mcp.Client(url)` connections, each with its own plan's token, each playing its plan's 10
episodes one after another with the deterministic scripted agent. Every
client records what it sent and received; each episode's log must hold exactly that
conversation (no event lost, none from another episode), under the header the client
asked for, complete, and scorable. The server's resident memory is read after a warm-up
round and after the run: it must stay flat.

The clients skip the SDK's revalidation of each result against its tool's output schema
(jsonschema, about a fifth of the clients' CPU time over the 11,500 calls): the soak
checks what the server logged against what each client received, and that every result
fits its output schema is checked by tests/hardening/test_fuzz_tools.py, which validates
every one of its 10,000 results, concurrent ones included.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import orjson
import pytest
from mcp import Client, ClientSession
from support.hang_guard import HANG_GUARD_S
from support.http_server import ServerProcess, http_server_process

from taurec.clients.agents.base import Episode, ToolOutcome, outcome_of
from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection, open_client
from taurec.evaluator.evaluate import evaluate
from taurec.evaluator.logs import Resolver, score_files
from taurec.server.run_facts import derive_seed
from taurec.tasks.runs.plan import PlannedEpisode, RunPlan, new_plan, write_plan
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import ParsedLog, read_log

CLIENTS = 50
PER_CLIENT = 10
EPISODES = CLIENTS * PER_CLIENT
#: Allowed growth of the server's RSS from the warm-up round (50 sessions open, one episode
#: each done, 50 tasks seen) to the end of the run (the same sessions, 450 more episodes,
#: about 10,000 more requests). Measured on the reference machine: +0.2 to +0.5 MiB. A whole
#: episode kept in memory is small (about 11 KiB: 300 episodes left open grew the server by
#: 3.3 MB), so a per-episode leak could hide in 500 episodes; what this bound catches is
#: memory kept per request or per result (1.6 KiB a request exceeds it), buffers that grow
#: with traffic, and anything per episode larger than 36 KiB. 30 times the measured growth:
#: an assertion about memory, not a benchmark.
MAX_GROWTH_KIB = 16 * 1024

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads the server's RSS from /proc (Linux)"
)


@dataclass
class RecordingEpisode(Episode):
    """An Episode that keeps every call the client sent and what came back."""

    sent: list[bytes] = field(default_factory=list)  # each call as JSON: tool, arguments, ...

    async def call(self, tool: str, **arguments: Any) -> ToolOutcome:
        outcome = await super().call(tool, **arguments)
        # serialised now: agents may annotate the dicts they receive (the scripted agent does)
        arguments = {"episode_id": self.episode_id, **arguments}
        self.sent.append(orjson.dumps([tool, arguments, outcome.content, outcome.is_error]))
        return outcome

    @property
    def calls(self) -> list[tuple[str, dict[str, Any], Any, bool]]:
        """(tool, arguments, what came back, whether it was an error), in call order."""
        out = []
        for raw in self.sent:
            tool, arguments, content, is_error = orjson.loads(raw)
            out.append((tool, arguments, content, is_error))
        return out


@dataclass(frozen=True)
class Seen:
    """One episode as its client saw it."""

    client: int
    label: str
    task_id: str
    trial: int
    episode: RecordingEpisode


def _plan(tasks: list[str]) -> list[list[tuple[str, int]]]:
    """Client c's i-th episode is episode g = 50 i + c of the run: task g mod 60, trial
    g div 60. Every (task, trial) is played once, each client mixes tasks, and the warm-up
    round (i = 0) covers 50 different tasks."""
    return [
        [(tasks[g % len(tasks)], g // len(tasks)) for g in range(c, EPISODES, CLIENTS)]
        for c in range(CLIENTS)
    ]


async def _play(client: Client, c: int, task_id: str, trial: int) -> Seen:
    label = f"soak-{c:02d}"
    args = {"task_id": task_id, "trial": trial, "agent_label": label}
    started = outcome_of(await client.call_tool("start_episode", args))
    assert not started.is_error, started.text
    data = started.data
    assert (data["task_id"], data["trial"]) == (task_id, trial)
    episode = RecordingEpisode(
        client=client,
        episode_id=str(data["episode_id"]),
        task_id=task_id,
        opening=str(data["opening"]),
        trial=trial,
        max_turns=int(data["max_turns"]),
    )
    await ScriptedAgent(label).run(episode)
    assert episode.ended, f"{task_id} trial {trial}: the scripted agent did not finish"
    return Seen(c, label, task_id, trial, episode)


@dataclass
class Soak:
    seen: list[Seen] = field(default_factory=list)
    rss_kib: dict[str, int] = field(default_factory=dict)


def _run_plans(plan: list[list[tuple[str, int]]], folder: Path) -> list[tuple[RunPlan, Path]]:
    """One sealed plan per client, holding exactly that client's episodes."""
    suite = load_suite("builtin")
    made = []
    for c, specs in enumerate(plan):
        base = new_plan(
            label=f"soak-{c:02d}",
            suite_id=suite.id,
            suite_spec="builtin",
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
        made.append((sealed, path))
    return made


async def _soak(
    server: ServerProcess, plan: list[list[tuple[str, int]]], tokens: list[str]
) -> Soak:
    """Every client plays its first episode (the warm-up round), waits for all the others,
    then plays the rest; the server's RSS is read after the warm-up round and after the
    last episode, with the same 50 sessions open both times."""
    soak = Soak()
    lock = anyio.Lock()
    warm, done = [0], [0]
    all_warm, go, all_done = anyio.Event(), anyio.Event(), anyio.Event()

    async def arrive(count: list[int], event: anyio.Event) -> None:
        async with lock:
            count[0] += 1
            if count[0] == CLIENTS:
                event.set()

    async def session(c: int) -> None:
        connection = Connection("http", url=server.url, auth_token=tokens[c])
        async with open_client(connection) as client:
            for i, (task_id, trial) in enumerate(plan[c]):
                soak.seen.append(await _play(client, c, task_id, trial))
                if i == 0:
                    await arrive(warm, all_warm)
                    await go.wait()
            await arrive(done, all_done)
            await all_done.wait()  # keep the session open until the last RSS reading

    async def measure() -> None:
        await all_warm.wait()
        soak.rss_kib["after warm-up"] = server.rss_kib()
        go.set()
        await all_done.wait()
        soak.rss_kib["after the run"] = server.rss_kib()

    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(measure)
            for c in range(CLIENTS):
                tg.start_soon(session, c)
    soak.rss_kib["sessions closed"] = server.rss_kib()
    return soak


def _expected_transcript(seen: Seen) -> tuple[list[Any], list[str], list[str]]:
    """From what the client saw: its non-message tool calls with their results, the
    messages it sent, and everything the user said to it."""
    everything = seen.episode.calls
    calls = [(n, a, content, err) for n, a, content, err in everything if n != "send_message"]
    said = [a["text"] for n, a, _, err in everything if n == "send_message" and not err]
    heard = [seen.episode.opening]
    for name, _, content, err in everything:
        if err or not isinstance(content, dict):
            continue
        if name == "send_message":
            heard.append(content["reply"])
        elif name == "recommend" and content.get("user_reaction"):
            heard.append(content["user_reaction"])
    return calls, said, heard


def _logged_transcript(parsed: ParsedLog) -> tuple[list[Any], list[str], list[str]]:
    results = {e["call_id"]: e for e in parsed.events if e["type"] == "tool_result"}
    calls = []
    for e in parsed.events:
        if e["type"] == "tool_call":
            r = results[e["call_id"]]
            calls.append((e["name"], e["arguments"], r["content"], r["is_error"]))
    said = [e["text"] for e in parsed.events if e["type"] == "agent_message"]
    heard = [e["text"] for e in parsed.events if e["type"] == "user_message"]
    return calls, said, heard


async def _no_revalidation(self: ClientSession, name: str, result: types.CallToolResult) -> None:
    """Stands in for `ClientSession.validate_tool_result` (see the module docstring)."""


@pytest.mark.slow
def test_500_http_episodes_from_50_concurrent_sessions_are_each_logged_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ClientSession, "validate_tool_result", _no_revalidation)
    tasks = [t.id for t in load_suite("builtin").tasks]
    plan = _plan(tasks)
    assert len({spec for specs in plan for spec in specs}) == EPISODES  # all distinct
    log_dir = tmp_path / "logs"
    plans = _run_plans(plan, tmp_path)
    plan_args = [arg for _, path in plans for arg in ("--plan", str(path))]
    begun = time.monotonic()
    with http_server_process(log_dir, *plan_args) as server:
        soak = anyio.run(_soak, server, plan, [p.token for p, _ in plans])
        assert server.proc.poll() is None, server.stderr()
        assert "Traceback" not in server.stderr(), server.stderr()  # nothing failed unseen
    played = time.monotonic() - begun

    # exactly one complete, clean log per episode played, under its client's header
    paths = sorted(log_dir.rglob("*.jsonl"))
    assert len(soak.seen) == len(paths) == EPISODES
    ids = [s.episode.episode_id for s in soak.seen]
    assert len(set(ids)) == EPISODES
    logs: dict[str, ParsedLog] = {}
    for path in paths:
        parsed = read_log(path)
        assert parsed.ok and parsed.header is not None, (path, parsed.problems)
        assert parsed.events[-1]["type"] == "end", path
        logs[parsed.header.episode_id] = parsed
    assert set(logs) == set(ids)

    for s in soak.seen:
        parsed = logs[s.episode.episode_id]
        header = parsed.header
        assert header is not None
        assert (header.task_id, header.trial, header.agent.label) == (s.task_id, s.trial, s.label)
        assert header.seed == derive_seed(s.task_id, s.trial)
        assert parsed.events[-1]["reason"] == s.episode.end_reason
        # every call in this log names this episode, and the log holds exactly the
        # conversation this client had: same calls, results, messages and replies
        for e in parsed.events:
            if e["type"] == "tool_call":
                assert e["arguments"]["episode_id"] == header.episode_id
        assert _logged_transcript(parsed) == _expected_transcript(s), (s.task_id, s.trial)

    scores = score_files(paths, Resolver())
    assert len(scores) == EPISODES
    assert all(s.mode == "sealed" for s in scores)
    check = evaluate([log_dir], Resolver())
    assert check.clean, (check.problems, check.excluded[:3])
    assert sorted((r["label"], r["planned"], r["counted"]) for r in check.runs) == [
        (f"soak-{c:02d}", PER_CLIENT, PER_CLIENT) for c in range(CLIENTS)
    ]
    assert not [s for s in scores if s.infra_error or s.problems]
    assert {(s.task_id, s.trial) for s in scores} == {(s.task_id, s.trial) for s in soak.seen}

    warm, after = soak.rss_kib["after warm-up"], soak.rss_kib["after the run"]
    passed = sum(s.passed for s in scores)
    print(
        f"\nsoak: {EPISODES} episodes from {CLIENTS} sessions in {played:.1f} s "
        f"(server start included), {passed} passed; server RSS after warm-up "
        f"{warm / 1024:.1f} MiB, after the run {after / 1024:.1f} MiB "
        f"(growth {(after - warm) / 1024:+.1f} MiB), sessions closed "
        f"{soak.rss_kib['sessions closed'] / 1024:.1f} MiB"
    )
    assert after - warm < MAX_GROWTH_KIB
