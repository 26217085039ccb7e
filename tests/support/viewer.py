"""A small run for the viewer tests: scripted episodes that pass, random ones that fail,
and one open-mode log whose label, messages and acts carry markup (untrusted text)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson

from support.hang_guard import HANG_GUARD_S
from taurec.clients.agents.recommendation.baselines import RandomAgent
from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer.access import new_token, tokened_url
from taurec.evaluator.viewer.app import bind_loopback, viewer_server
from taurec.evaluator.viewer.data import LogSet
from taurec.server.settings import ServerSettings

TASKS = ["t001", "t002", "t003"]
#: A label and texts that would run script if the page treated them as HTML.
HOSTILE_LABEL = "<img src=x onerror=\"console.error('label-injected')\">"
HOSTILE_TEXT = "<script>console.error('text-injected')</script><b>bold?</b>"
HOSTILE_ACT = {"intent": "disclose", "slot": "genres", "value": "<i>Western</i>", "items": []}


async def _run(agent: object, label: str, out: Path) -> None:
    settings = ServerSettings(log_dir=out, run_label=label)
    runner = Runner(agent, Connection("inproc", settings), out, label, handle_signals=False)
    await runner.run(plan(TASKS, 1))


def make_run(out: Path) -> None:
    """Three passing scripted episodes and three failing random ones under `out`."""
    asyncio.run(_run(ScriptedAgent(), "scripted", out))
    asyncio.run(_run(RandomAgent(seed=1), "random", out))


def hostile_copy(out: Path, name: str = "hostile") -> Path:
    """A copy of one random episode as an unchained open-mode log with markup in its
    label, the user's first message and its acts."""
    source = next(p for p in sorted(out.rglob("*.jsonl")) if '"label":"random"' in p.read_text())
    records = [orjson.loads(line) for line in source.read_bytes().splitlines()]
    for r in records:
        r.pop("chain", None)
        r.pop("hmac", None)
        r.pop("key_id", None)
    header = records[0]
    header["agent"]["label"] = HOSTILE_LABEL
    header["episode_id"] = name * 4
    header["mode"] = "open"
    header.pop("plan_id", None)
    first = next(r for r in records if r["type"] == "user_message")
    first["text"] = HOSTILE_TEXT
    first["acts"] = [HOSTILE_ACT]
    first["acts_by"] = "rule"
    target = out / name / "episode.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return target


@contextmanager
def served(paths: list[Path]) -> Iterator[str]:
    """The viewer over `paths` on a free loopback port, in a thread; yields its URL with
    its token, as `evaluator view` prints it."""
    sock = bind_loopback(0)
    token = new_token()
    server = viewer_server(LogSet(paths, Resolver()), token)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(400):
            if server.started:
                break
            threading.Event().wait(0.05)
        yield tokened_url(f"http://127.0.0.1:{sock.getsockname()[1]}/", token)
    finally:
        server.should_exit = True
        thread.join(timeout=HANG_GUARD_S)
        sock.close()
