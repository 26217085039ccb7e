"""Whether one client's heavy searches slow another client's get_item.

    python bench/event_loop_fairness.py                       # 300,000 items, a temp dir
    python bench/event_loop_fairness.py --catalog /tmp/c.taurec-catalog   # reuse a folder
    python bench/event_loop_fairness.py --query-chars 4000 --max-query-chars 4000

A catalog folder of `--n` items (`taurec catalog generate`) is served over Streamable
HTTP in this process (the builtin suite's tasks, the folder as catalog). A victim client,
here too, calls `get_item` on random ids one at a time, `--calls` times; first alone
(quiet), then while a hostile client, a process of its own connecting from another
loopback address (127.0.0.2, so another client: the server has no token), keeps `--hostile` searches of `--query-chars` characters in flight (catalog words,
different every time). Default length: the server's `max_query_chars`, the longest it
runs; `--query-chars 4000 --max-query-chars 4000` lifts the limit, as before the fix.

Printed: the victim's p50 and p95 round trip, quiet and under attack, their ratios
(goal: p95 under 3x the quiet p95), and the hostile searches answered and refused.
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
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

GOAL = 3.0  # hostile p95 / quiet p95
HOSTILE_ADDRESS = "127.0.0.2"
TAUREC = [sys.executable, "-c", "from taurec.clients.cli.main import main; main()"]


def _port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _client(url: str, token: str, address: str | None = None) -> Client:
    """A client sending `token`, its connections from loopback `address` if given."""
    headers = {"Authorization": f"Bearer {token}"}
    if address is None:
        http = create_mcp_http_client(headers=headers, timeout=httpx2.Timeout(120.0))
    else:
        transport = httpx2.AsyncHTTPTransport(local_address=address)
        http = httpx2.AsyncClient(headers=headers, timeout=120.0, transport=transport)
    return Client(streamable_http_client(url, http_client=http))


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """A tool call without the client's output-schema check (client work the server's
    latency should not include; a hostile client skips it too)."""
    params = types.CallToolRequestParams(name=name, arguments=arguments)
    request = types.CallToolRequest(params=params)
    return await client.session.send_request(request, types.CallToolResult)


async def _episode(client: Client) -> str:
    result = await _call(client, "start_episode", {"task_id": "t001"})
    return str((result.structured_content or {})["episode_id"])


class Player:
    """Calls one tool after another on an episode, starting a new one before the server's
    tool-call limit would end it."""

    def __init__(self, client: Client, calls_per_episode: int = 150) -> None:
        self.client = client
        self.per_episode = calls_per_episode
        self.episode = ""
        self.used = 0

    async def call(self, name: str, arguments: dict[str, Any]) -> bool:
        if not self.episode or self.used >= self.per_episode:
            self.episode, self.used = await _episode(self.client), 0
        self.used += 1
        result = await _call(self.client, name, {"episode_id": self.episode, **arguments})
        return not result.is_error


async def victim(url: str, ids: list[str], calls: int, seed: int, gap: float = 0) -> list[float]:
    """Round trips (ms) of `calls` get_item calls, one at a time, `gap` seconds apart."""
    rng = random.Random(seed)
    async with _client(url, "victim-token") as client:
        player = Player(client)
        await player.call("get_item", {"item_id": ids[0]})  # warm-up
        times = []
        for _ in range(calls):
            item = rng.choice(ids)
            t0 = time.perf_counter()
            ok = await player.call("get_item", {"item_id": item})
            times.append((time.perf_counter() - t0) * 1000)
            assert ok, item
            await asyncio.sleep(gap)
    return times


async def hostile(url: str, words: list[str], chars: int, in_flight: int, stop: Path) -> None:
    """Keep `in_flight` searches of `chars` characters going until `stop` exists; print
    how many were answered and how many refused."""
    rng = random.Random(1)
    counts = {"answered": 0, "refused": 0}
    async with _client(url, "hostile-token", HOSTILE_ADDRESS) as client:

        async def one_lane() -> None:
            player = Player(client, calls_per_episode=150)
            while not stop.exists():
                text = ""
                while len(text) < chars:
                    text += rng.choice(words) + " "
                ok = await player.call("search_catalog", {"query": text[:chars], "limit": 100})
                counts["answered" if ok else "refused"] += 1

        await asyncio.gather(*(one_lane() for _ in range(in_flight)))
    print(f"{counts['answered']} {counts['refused']}")


def catalog_words(folder: Path, seed: int) -> tuple[list[str], list[str]]:
    from taurec.catalog.store import Catalog

    catalog = Catalog.load(folder)
    rng = random.Random(seed)
    rows = [rng.randrange(len(catalog)) for _ in range(2000)]
    words: list[str] = []
    for row in rows[:300]:
        item = catalog.items[row]
        words += item.title.split() + item.overview.split()[:30]
    return [catalog.items[r].id for r in rows], words


def _pct(times: list[float], q: float) -> float:
    return statistics.quantiles(times, n=100)[int(q) - 1]


async def measure(args: argparse.Namespace, folder: Path, logs: Path) -> dict[str, Any]:
    from taurec.server.app import HttpServer
    from taurec.server.settings import HttpSettings, ServerSettings

    ids, words = catalog_words(folder, args.seed)
    port = _port()
    settings = ServerSettings(
        catalog=str(folder),
        log_dir=logs,
        run_label="fairness",
        max_query_chars=args.max_query_chars,
        max_message_chars=max(4000, args.max_query_chars),
    )
    server = HttpServer(settings, HttpSettings(port=port))
    url = f"http://127.0.0.1:{port}/mcp"
    chars = args.query_chars or args.max_query_chars
    stop = str(logs.parent / "stop")
    figures: dict[str, Any] = {"items": len(server.service.catalog), "query_chars": chars}
    async with asyncio.TaskGroup() as tg:
        tg.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        quiet = await victim(url, ids, args.calls, args.seed)
        attack = subprocess.Popen(
            [sys.executable, __file__, "--as-hostile", url, str(chars), str(args.hostile), stop],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert attack.stdin is not None and attack.stdout is not None
        attack.stdin.write("\n".join(words))
        attack.stdin.close()
        await asyncio.sleep(args.warmup)  # its episodes started, its searches queued
        loaded = await victim(url, ids, args.calls, args.seed + 1)
        Path(stop).touch()
        out = await asyncio.to_thread(attack.stdout.read)
        attack.wait()
        server.stop()
    answered, refused = (int(x) for x in out.split())
    for name, times in (("quiet", quiet), ("hostile", loaded)):
        figures[name] = {"p50": statistics.median(times), "p95": _pct(times, 95)}
    figures["hostile_searches"] = {"answered": answered, "refused": refused}
    return figures


def show(f: dict[str, Any], args: argparse.Namespace) -> None:
    q, h = f["quiet"], f["hostile"]
    ratio50, ratio95 = h["p50"] / q["p50"], h["p95"] / q["p95"]
    verdict = "meets" if ratio95 < GOAL else "MISSES"
    print(
        f"catalog {f['items']:,} items; victim: {args.calls} get_item calls each way; "
        f"hostile: {args.hostile} searches of {f['query_chars']} characters in flight "
        f"(max_query_chars {args.max_query_chars}); {os.cpu_count()} cores"
    )
    print(f"{'':10}{'p50 ms':>10}{'p95 ms':>10}")
    print(f"{'quiet':10}{q['p50']:10.1f}{q['p95']:10.1f}")
    print(f"{'hostile':10}{h['p50']:10.1f}{h['p95']:10.1f}")
    print(f"{'ratio':10}{ratio50:10.2f}{ratio95:10.2f}   ({verdict} the goal: p95 < {GOAL:g}x)")
    s = f["hostile_searches"]
    print(f"hostile searches answered {s['answered']}, refused or over budget {s['refused']}")


def catalog_folder(given: Path | None, n: int, tmp: Path) -> Path:
    """`given`, else a catalog folder of `n` generated items written under `tmp`."""
    if given is not None:
        return given
    folder = tmp / "bench.taurec-catalog"
    subprocess.run(
        [*TAUREC, "catalog", "generate", "--n", str(n), "--out", str(folder)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=300_000, help="catalog items")
    parser.add_argument("--catalog", type=Path, help="an existing catalog folder to serve")
    parser.add_argument("--calls", type=int, default=300, help="victim get_item calls per phase")
    parser.add_argument("--hostile", type=int, default=16, help="hostile searches in flight")
    parser.add_argument("--query-chars", type=int, default=0, help="default: max-query-chars")
    parser.add_argument("--max-query-chars", type=int, default=500, help="the server's limit")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of attack first")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--as-hostile", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.as_hostile:
        url, chars, lanes, stop = args.as_hostile
        words = sys.stdin.read().split("\n")
        asyncio.run(hostile(url, words, int(chars), int(lanes), Path(stop)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = catalog_folder(args.catalog, args.n, Path(tmp))
        figures = asyncio.run(measure(args, folder, Path(tmp) / "logs"))
    show(figures, args)


if __name__ == "__main__":
    main()
