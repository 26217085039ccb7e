"""Whether one client's flood of cheap calls slows another client's, on every kind's server.

    python bench/cheap_call_fairness.py                      # every kind, 3 runs each
    python bench/cheap_call_fairness.py --kinds ranking --runs 5 --lanes 16
    python bench/cheap_call_fairness.py --catalog big.taurec-catalog   # reuse a folder

Each kind's server runs over Streamable HTTP in this process, at its default settings (the
request rate limit included: the flood stays well under it): the recommendation kind over a
catalog folder of `--n` generated items (`get_item`), the ranking kind over its built-in
suite (`get_user_profile`), the stream kind over its built-in suite (`current_episode`). A
victim client, a process of its own (its client work must not share the server's event
loop), makes `--calls` of that call one at a time on episodes of its own, first alone
(quiet), then while a hostile client, another process, connecting from another loopback
address (127.0.0.2, so another client), keeps `--lanes` of the same call in flight on
episodes of its own, without a pause (starting a new episode whenever one would end: a
ranking episode's tool budget, a stream's call limit).

Each run floods twice, with the server's turns (server/http_fairness.py) and without
them (every request let in at once, as before them), in alternating order from one run to
the next. Printed: each run's victim p50 and p95 quiet and under each flood and their
ratios, the hostile calls answered a second, then per kind the medians over the runs of
each p95 ratio, against the goal (the flood's p95 within 3x the quiet p95, both measured
in the same run).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import orjson
from event_loop_fairness import GOAL, HOSTILE_ADDRESS, _call, _client, _pct, _port, catalog_folder
from mcp_types.version import LATEST_PROTOCOL_VERSION

#: kind -> (suite, the cheap call, calls an episode allows before it must start anew)
KINDS: dict[str, tuple[str, str, int]] = {
    "recommendation": ("builtin", "get_item", 150),
    "ranking": ("ranking:builtin", "get_user_profile", 9),
    "stream": ("stream:builtin", "current_episode", 40),  # a stream's log stays under its cap
}


class Episodes:
    """One client's episodes of a kind: `call()` makes one cheap call, starting a new
    episode whenever the last one would end."""

    def __init__(self, kind: str, start: Callable[..., Awaitable[Any]], tasks: list[str]) -> None:
        self.kind = kind
        self.suite, self.tool, self.per_episode = KINDS[kind]
        self._start = start
        self._tasks = tasks
        self.episode, self.used, self.n = "", self.per_episode, 0
        self.item = ""

    async def ensure(self) -> None:
        if self.used < self.per_episode:
            return
        if self.episode:  # ended, so that its client's open episodes stay under the quota
            ended = {"episode_id": self.episode, "reason": "agent_error"}
            await self._start("abort_episode", ended)
        task = self._tasks[self.n % len(self._tasks)]
        self.n += 1
        tool = "start_stream" if self.kind == "stream" else "start_episode"
        started = await self._start(tool, {"task_id": task})
        self.episode, self.used = str(started["episode_id"]), 0
        if self.kind == "recommendation" and not self.item:
            self.item = "syn_000001"

    def arguments(self, item: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"episode_id": self.episode}
        if self.kind == "recommendation":
            out["item_id"] = item or self.item
        return out


async def victim(url: str, kind: str, tasks: list[str], ids: list[str], calls: int) -> list[float]:
    """Round trips (ms) of `calls` cheap calls, one at a time, on the victim's episodes."""
    rng = random.Random(7)
    async with _client(url, "victim-token") as client:

        async def start(tool: str, arguments: dict[str, Any]) -> Any:
            result = await _call(client, tool, arguments)
            assert not result.is_error, result
            if tool == "abort_episode":
                return None
            return result.structured_content or orjson.loads(result.content[0].text)

        eps = Episodes(kind, start, tasks)
        times = []
        for n in range(calls + 1):  # the first is a warm-up
            await eps.ensure()
            arguments = eps.arguments(rng.choice(ids) if ids else None)
            t0 = time.perf_counter()
            result = await _call(client, eps.tool, arguments)
            took = (time.perf_counter() - t0) * 1000
            eps.used += 1
            assert not result.is_error, result
            if n:
                times.append(took)
    return times


def _request(rid: int, name: str, arguments: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": LATEST_PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "flood", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": name, "arguments": arguments, "_meta": meta}
    body = orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
        "mcp-method": "tools/call",
        "mcp-name": name,
    }
    return body, headers


async def flood(url: str, kind: str, tasks: list[str], lanes: int, stop: Path) -> None:
    """Keep `lanes` cheap calls in flight until `stop` exists; print the calls answered,
    refused with 429, failed, and the seconds it ran."""
    counts = {"answered": 0, "limited": 0, "failed": 0}
    transport = httpx2.AsyncHTTPTransport(local_address=HOSTILE_ADDRESS)

    async with httpx2.AsyncClient(transport=transport, timeout=120.0) as http:

        async def post(name: str, arguments: dict[str, Any]) -> Any:
            body, headers = _request(1, name, arguments)
            response = await http.post(url, content=body, headers=headers)
            if response.status_code == 429:
                counts["limited"] += 1
                return None
            result = response.json().get("result") if response.status_code == 200 else None
            if result is None or result.get("isError"):
                counts["failed"] += 1
                return None
            counts["answered"] += 1
            return result

        async def start(tool: str, arguments: dict[str, Any]) -> Any:
            if tool == "abort_episode":
                await post(tool, arguments)
                return None
            while (result := await post(tool, arguments)) is None:
                if stop.exists():
                    return {"episode_id": ""}
                await asyncio.sleep(0.01)
            return orjson.loads(result["content"][0]["text"])

        async def lane() -> None:
            eps = Episodes(kind, start, tasks)
            while not stop.exists():
                await eps.ensure()
                eps.used += 1
                await post(eps.tool, eps.arguments())

        t0 = time.perf_counter()
        await asyncio.gather(*(lane() for _ in range(lanes)))
        seconds = time.perf_counter() - t0
    print(f"{counts['answered']} {counts['limited']} {counts['failed']} {seconds}")


async def one_run(
    args: argparse.Namespace, kind: str, folder: Path | None, logs: Path, run: int
) -> dict[str, Any]:
    from taurec.server.app import HttpServer
    from taurec.server.http_fairness import FairGate
    from taurec.server.settings import HttpSettings, ServerSettings

    suite, _, _ = KINDS[kind]
    catalog = {"catalog": str(folder)} if kind == "recommendation" and folder else {}
    ids: list[str] = []
    if catalog:
        from event_loop_fairness import catalog_words

        ids, _ = catalog_words(folder, args.seed)  # type: ignore[arg-type]
    port = _port()
    settings = ServerSettings(suite=suite, log_dir=logs, run_label=f"fair-{kind}", **catalog)
    server = HttpServer(settings, HttpSettings(port=port))
    url = f"http://127.0.0.1:{port}/mcp"
    figures: dict[str, Any] = {}
    async with asyncio.TaskGroup() as tg:
        tg.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        quiet = await _victim_process(url, kind, ids, args.calls)
        figures["quiet"] = _summary(quiet)
        logs.mkdir(parents=True, exist_ok=True)
        phases = [("flood", server.guard.gate), ("no turns", FairGate(slots=10**9))]
        for name, gate in phases if run % 2 == 0 else phases[::-1]:
            server.guard.gate = gate
            stop = logs / f"stop-{name}"
            hostile = subprocess.Popen(
                [sys.executable, __file__, "--as-hostile", url, kind, str(args.lanes), str(stop)],
                stdout=subprocess.PIPE,
                text=True,
            )
            await asyncio.sleep(args.warmup)  # its episodes started, its lanes full
            loaded = await _victim_process(url, kind, ids, args.calls)
            stop.touch()
            out, _ = await asyncio.to_thread(hostile.communicate)
            answered, limited, _failed, seconds = (float(x) for x in out.split())
            figures[name] = {
                **_summary(loaded),
                "hostile/s": answered / seconds,
                "429/s": limited / seconds,
            }
        server.stop()
    return figures


def _summary(times: list[float]) -> dict[str, float]:
    return {"p50": statistics.median(times), "p95": _pct(times, 95)}


async def _victim_process(url: str, kind: str, ids: list[str], calls: int) -> list[float]:
    """`victim` in a process of its own: its round trips (ms)."""
    command = [sys.executable, __file__, "--as-victim", url, kind, str(calls)]
    proc = await asyncio.create_subprocess_exec(
        *command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    out, _ = await proc.communicate("\n".join(ids).encode())
    assert proc.returncode == 0, f"the victim failed ({proc.returncode})"
    times: list[float] = orjson.loads(out)
    return times


def show(kind: str, runs: list[dict[str, Any]], args: argparse.Namespace) -> float:
    _, call, _ = KINDS[kind]
    print(f"\n{kind}: victim {args.calls} {call} calls a phase; hostile {args.lanes} in flight")
    print(f"{'':20}{'p50 ms':>8}{'p95 ms':>8}{'x p50':>7}{'x p95':>7}{'hostile/s':>10}{'429/s':>7}")
    ratios: dict[str, list[float]] = {"flood": [], "no turns": []}
    for i, r in enumerate(runs, 1):
        q = r["quiet"]
        print(f"run {i}")
        print(f"{'  quiet':20}{q['p50']:8.1f}{q['p95']:8.1f}")
        for name in ("flood", "no turns"):
            f = r[name]
            x50, x95 = f["p50"] / q["p50"], f["p95"] / q["p95"]
            ratios[name].append(x95)
            label = "  flood, turns" if name == "flood" else "  flood, no turns"
            print(f"{label:20}{f['p50']:8.1f}{f['p95']:8.1f}{x50:7.2f}{x95:7.2f}"
                  f"{f['hostile/s']:10.0f}{f['429/s']:7.0f}")  # fmt: skip
    median = statistics.median(ratios["flood"])
    before = statistics.median(ratios["no turns"])
    verdict = "meets" if median <= GOAL else "MISSES"
    print(
        f"{kind}: median p95 ratio {median:.2f}x quiet with turns ({verdict} the goal: "
        f"<= {GOAL:g}x), {before:.2f}x without"
    )
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds")
    parser.add_argument("--n", type=int, default=300_000, help="catalog items (recommendation)")
    parser.add_argument("--catalog", type=Path, help="an existing catalog folder to serve")
    parser.add_argument("--runs", type=int, default=3, help="runs per kind, each a new server")
    parser.add_argument("--calls", type=int, default=300, help="victim calls a phase")
    parser.add_argument("--lanes", type=int, default=16, help="hostile calls in flight")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of flood first")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--as-hostile", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--as-victim", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.as_victim:
        url, kind, calls = args.as_victim
        from taurec.tasks.suite import load_suite

        tasks = [t.id for t in load_suite(KINDS[kind][0]).tasks]
        ids = [line for line in sys.stdin.read().split("\n") if line]
        times = asyncio.run(victim(url, kind, tasks, ids, int(calls)))
        sys.stdout.buffer.write(orjson.dumps(times))
        return
    if args.as_hostile:
        url, kind, lanes, stop = args.as_hostile
        from taurec.tasks.suite import load_suite

        tasks = [t.id for t in load_suite(KINDS[kind][0]).tasks]
        asyncio.run(flood(url, kind, tasks, int(lanes), Path(stop)))
        return
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the start")
    medians = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = None
        if "recommendation" in kinds:
            folder = catalog_folder(args.catalog, args.n, Path(tmp))
        for kind in kinds:
            runs = [
                asyncio.run(one_run(args, kind, folder, Path(tmp) / f"logs-{kind}-{run}", run))
                for run in range(args.runs)
            ]
            medians[kind] = show(kind, runs, args)
    print("\n" + "; ".join(f"{k} {v:.2f}x" for k, v in medians.items()) + f" (goal <= {GOAL:g}x)")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
