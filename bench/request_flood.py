"""Whether one client's flood of cheap or refused requests slows another client's get_item,
with and without the per-client request rate (server/http_rate.py).

    python bench/request_flood.py                        # 300,000 items, 3 runs
    python bench/request_flood.py --runs 5 --lanes 32 --call get_item
    python bench/request_flood.py --rate 50 --burst 100 --victim-gap 30   # a paced victim

As event_loop_fairness.py: a catalog folder of `--n` items served over Streamable HTTP in
this process, and a victim client, here too, calling `get_item` on random ids one at a
time. The hostile client is a process of its own connecting from another loopback
address (127.0.0.2, so another client), keeping `--lanes` requests in flight without a
pause and ignoring Retry-After: `tools/call` requests that the server refuses (searches
one character over max_query_chars, on episodes of its own: each is parsed, answered
and logged), or with `--call get_item` cheap ones.

Each run, on a server of its own: the victim alone (quiet), then under the flood with no
rate limit, then under the flood with the server's rate limit (its defaults, or `--rate`
and `--burst`; a victim that sends more than that is refused too, so with a low rate
give it `--victim-gap`, the pause of an agent waiting for its model); the two flood
phases swap places from one run to the next. Printed: each run's figures, then the
medians over the runs: the victim's p50 and p95, their ratio to quiet (goal: p95 under
3x quiet), and the hostile requests answered and refused with 429 a second.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
import orjson
from event_loop_fairness import (
    GOAL,
    HOSTILE_ADDRESS,
    _pct,
    _port,
    catalog_folder,
    catalog_words,
    victim,
)
from mcp_types.version import LATEST_PROTOCOL_VERSION

NO_LIMIT = {"per_second": 1_000_000.0, "burst": 1_000_000}
CALLS_PER_EPISODE = 150  # a new episode before the server's tool-call limit ends one


def _request(rid: int, name: str, arguments: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """A sessionless tools/call request as the MCP SDK's client sends it: body, headers."""
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


async def flood(url: str, call: str, item: str, query_chars: int, lanes: int, stop: Path) -> None:
    """Keep `lanes` requests in flight until `stop` exists; print the requests answered,
    refused with 429, and otherwise failed, and the seconds it ran."""
    counts = {"answered": 0, "limited": 0, "failed": 0}
    done = asyncio.Event()
    transport = httpx2.AsyncHTTPTransport(local_address=HOSTILE_ADDRESS)
    timeout = httpx2.Timeout(60.0)

    async def watch() -> None:
        while not stop.exists():
            await asyncio.sleep(0.05)
        done.set()

    async def post(http: httpx2.AsyncClient, name: str, arguments: dict[str, Any]) -> Any:
        body, headers = _request(1, name, arguments)
        response = await http.post(url, content=body, headers=headers)
        if response.status_code == 429:
            counts["limited"] += 1
            return None
        if response.status_code != 200:
            counts["failed"] += 1
            return None
        counts["answered"] += 1
        return response.json().get("result")

    async def one_lane(http: httpx2.AsyncClient) -> None:
        episode, used = "", CALLS_PER_EPISODE
        while not done.is_set():
            if used >= CALLS_PER_EPISODE:
                if episode:  # ended, so that its open episodes stay under the server's quota
                    ended = {"episode_id": episode, "reason": "agent_error"}
                    if await post(http, "abort_episode", ended) is None:
                        continue
                result = await post(http, "start_episode", {"task_id": "t001"})
                if result is not None and not result.get("isError"):
                    episode, used = orjson.loads(result["content"][0]["text"])["episode_id"], 0
                elif result is not None:
                    sys.exit(f"start_episode failed: {result}")
                continue
            used += 1
            if call == "get_item":
                arguments = {"episode_id": episode, "item_id": item}
            else:
                arguments = {"episode_id": episode, "query": "x" * query_chars}
            await post(http, call, arguments)

    async with httpx2.AsyncClient(transport=transport, timeout=timeout) as http:
        t0 = time.perf_counter()
        async with asyncio.TaskGroup() as tg:
            tg.create_task(watch())
            for _ in range(lanes):
                tg.create_task(one_lane(http))
        seconds = time.perf_counter() - t0
    print(f"{counts['answered']} {counts['limited']} {counts['failed']} {seconds}")


async def one_run(args: argparse.Namespace, folder: Path, logs: Path, run: int) -> dict[str, Any]:
    """One server: the victim quiet, then under the flood without and with the limit."""
    from taurec.server.app import HttpServer
    from taurec.server.http_rate import RateLimits, RequestRate
    from taurec.server.settings import HttpSettings, ServerSettings

    ids, _ = catalog_words(folder, args.seed)
    port = _port()
    settings = ServerSettings(catalog=str(folder), log_dir=logs, run_label=f"flood-{run}")
    limited = RateLimits(
        **{k: v for k, v in (("per_second", args.rate), ("burst", args.burst)) if v}
    )
    server = HttpServer(settings, HttpSettings(port=port, rate=limited))
    url = f"http://127.0.0.1:{port}/mcp"
    figures: dict[str, Any] = {"items": len(server.service.catalog), "rate": limited}
    phases = [("no limit", RateLimits(**NO_LIMIT)), ("limit", limited)]
    async with asyncio.TaskGroup() as tg:
        tg.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        gap = args.victim_gap / 1000
        figures["quiet"] = _summary(await victim(url, ids, args.calls, args.seed + run, gap))
        for name, limits in phases if run % 2 == 0 else phases[::-1]:
            server.guard.rate = RequestRate(limits)
            stop = logs.parent / f"stop-{run}-{name}"
            chars, lanes = str(settings.max_query_chars + 1), str(args.lanes)
            hostile = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--as-hostile",
                    url,
                    args.call,
                    ids[0],
                    chars,
                    lanes,
                    str(stop),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            await asyncio.sleep(args.warmup)  # its episodes started, its lanes full
            times = await victim(url, ids, args.calls, args.seed + run, gap)
            stop.touch()
            out, _ = await asyncio.to_thread(hostile.communicate)
            answered, limited_count, failed, seconds = (float(x) for x in out.split())
            figures[name] = {
                **_summary(times),
                "answered/s": answered / seconds,
                "429/s": limited_count / seconds,
                "failed": failed,
            }
        server.stop()
    return figures


def _summary(times: list[float]) -> dict[str, float]:
    return {"p50": statistics.median(times), "p95": _pct(times, 95)}


def show(runs: list[dict[str, Any]], args: argparse.Namespace) -> None:
    rate = runs[0]["rate"]
    print(
        f"catalog {runs[0]['items']:,} items; victim: {args.calls} get_item calls a phase, "
        f"{args.victim_gap:g} ms apart; "
        f"hostile: {args.lanes} {args.call} requests in flight from {HOSTILE_ADDRESS}; "
        f"limit: {rate.per_second:g} requests/s, burst {rate.burst}; {os.cpu_count()} cores"
    )
    header = f"{'':14}{'p50 ms':>8}{'p95 ms':>8}{'x p50':>7}{'x p95':>7}{'ok/s':>8}{'429/s':>8}"
    for i, run in enumerate([*runs, _medians(runs)]):
        print(f"\nrun {i + 1}" if i < len(runs) else f"\nmedians of {len(runs)} runs")
        print(header)
        quiet = run["quiet"]
        for name in ("quiet", "no limit", "limit"):
            f = run[name]
            line = f"{name:14}{f['p50']:8.1f}{f['p95']:8.1f}"
            line += f"{f['p50'] / quiet['p50']:7.2f}{f['p95'] / quiet['p95']:7.2f}"
            if name != "quiet":
                line += f"{f['answered/s']:8.0f}{f['429/s']:8.0f}"
            print(line)
    medians = _medians(runs)
    for name in ("no limit", "limit"):
        ratio = medians[name]["p95"] / medians["quiet"]["p95"]
        verdict = "meets" if ratio < GOAL else "MISSES"
        print(f"{name}: median p95 {ratio:.2f}x quiet ({verdict} the goal: < {GOAL:g}x)")


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    phases = ("quiet", "no limit", "limit")
    return {
        name: {k: statistics.median(r[name][k] for r in runs) for k in runs[0][name]}
        for name in phases
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=300_000, help="catalog items")
    parser.add_argument("--catalog", type=Path, help="an existing catalog folder to serve")
    parser.add_argument("--runs", type=int, default=3, help="runs, each on a new server")
    parser.add_argument("--calls", type=int, default=300, help="victim get_item calls a phase")
    parser.add_argument("--lanes", type=int, default=16, help="hostile requests in flight")
    parser.add_argument("--call", choices=("search_catalog", "get_item"), default="search_catalog")
    parser.add_argument("--rate", type=float, default=0, help="default: the server's")
    parser.add_argument("--burst", type=int, default=0, help="default: the server's")
    parser.add_argument(
        "--victim-gap", type=float, default=0, help="ms between the victim's calls (a model's)"
    )
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of flood first")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--as-hostile", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.as_hostile:
        url, call, item, chars, lanes, stop = args.as_hostile
        asyncio.run(flood(url, call, item, int(chars), int(lanes), Path(stop)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = catalog_folder(args.catalog, args.n, Path(tmp))
        runs = [
            asyncio.run(one_run(args, folder, Path(tmp) / f"logs-{run}", run))
            for run in range(args.runs)
        ]
    show(runs, args)


if __name__ == "__main__":
    main()
