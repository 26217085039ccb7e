"""How much the server adds: tool round trips per transport, and episodes per second.

    python bench/server_speed.py              # 200 round trips per tool, 300 episodes
    python bench/server_speed.py --calls 50 --episodes 100 --json

Round trips: the median time of `filter_catalog` next to a no-op tool (`server_info`) on
the same connection, over stdio and over Streamable HTTP (each a `taurec serve`
subprocess), and in process without a transport (what the server itself spends). The
ratio shows what catalog work, episode logging and the larger payload add to a call
(target: at most 1.5x, for the default 10-item page). Episodes per second: a scripted agent (start, two messages,
search, filter, availability, recommend) against the rule-based user, in process
(target: at least 100/s), sequentially and 16 at a time.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import orjson
from mcp import Client, StdioServerParameters
from mcp.server import MCPServer
from rich.console import Console
from rich.table import Table

from taurec.server.app import build_server
from taurec.server.settings import ServerSettings

SERVE = [sys.executable, "-m", "taurec.clients.serve_cli"]
RATIO_TARGET = 1.5
EPISODES_TARGET = 100.0
FILTER = {"genres_any": ["Drama", "Comedy"], "runtime_max": 130, "min_rating": 5, "limit": 10}


Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
#: (row label, tool, arguments without the episode id)
PROBES = [
    ("no-op", "server_info", None),
    ("filter, 1 item", "filter_catalog", {**FILTER, "limit": 1}),
    ("filter, 10 items", "filter_catalog", FILTER),
]


async def round_trips(call: Call, calls: int) -> dict[str, float]:
    """Median milliseconds of each probe, interleaved on one connection."""
    eid = (await call("start_episode", {"task_id": "t001"}))["episode_id"]
    timings: dict[str, list[float]] = {label: [] for label, _, _ in PROBES}
    for i in range(calls + 10):
        for label, name, args in PROBES:
            request = {} if args is None else {"episode_id": eid, **args}
            t0 = time.perf_counter()
            await call(name, request)
            if i >= 10:  # warm-up calls are not counted
                timings[label].append((time.perf_counter() - t0) * 1000)
    return {label: statistics.median(ms) for label, ms in timings.items()}


def client_caller(client: Client) -> Call:
    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(name, args)
        assert not result.is_error, result.content
        return result.structured_content or {}

    return call


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(log_dir: Path) -> Iterator[str]:
    port = _free_port()
    args = ["--transport", "http", "--port", str(port), "--log-dir", str(log_dir)]
    proc = subprocess.Popen([*SERVE, *args], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the HTTP server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def scripted_episode(call: Call, k: int) -> None:
    """A simple agent: ask, search, filter, check, and commit the first match."""
    eid = (await call("start_episode", {"task_id": f"t{1 + k % 60:03d}", "trial": k}))["episode_id"]
    await call("send_message", {"episode_id": eid, "text": "Hi! What are you in the mood for?"})
    await call("send_message", {"episode_id": eid, "text": "Any length or rating you need?"})
    await call("search_catalog", {"episode_id": eid, "query": "family adventure", "limit": 5})
    page = await call("filter_catalog", {"episode_id": eid, **FILTER})
    item = page["items"][0]["id"]
    await call("check_availability", {"episode_id": eid, "item_id": item})
    await call("recommend", {"episode_id": eid, "item_id": item, "message": "Try this one."})


def direct_caller(server: MCPServer) -> Call:
    """Call tools in process, without a transport (what the server itself costs)."""

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await server.call_tool(name, args)
        return getattr(result, "structured_content", None) or {}

    return call


async def episodes_per_second(episodes: int, concurrency: int, log_dir: Path) -> float:
    server = build_server(ServerSettings(log_dir=log_dir, run_label=f"bench-{concurrency}"))
    call = direct_caller(server)
    await scripted_episode(call, 0)  # warm-up
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(k: int) -> None:
        async with limiter:
            await scripted_episode(call, k)

    t0 = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for k in range(episodes):
            tg.start_soon(one, k)
    return episodes / (time.perf_counter() - t0)


async def measure(calls: int, episodes: int, log_dir: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    server = build_server(ServerSettings(log_dir=log_dir, run_label="bench-direct"))
    out["in process (no transport)"] = await round_trips(direct_caller(server), calls)
    stdio = StdioServerParameters(command=SERVE[0], args=[*SERVE[1:], "--log-dir", str(log_dir)])
    async with Client(stdio) as client:
        out["stdio"] = await round_trips(client_caller(client), calls)
    with http_server(log_dir) as url:
        async with Client(url) as client:
            out["http"] = await round_trips(client_caller(client), calls)
    out["episodes_per_second"] = {
        "sequential": await episodes_per_second(episodes, 1, log_dir),
        "16 at a time": await episodes_per_second(episodes, 16, log_dir),
    }
    return out


def _verdict(ok: bool) -> str:
    return "ok" if ok else "SLOW"


def render(figures: dict[str, Any], calls: int, episodes: int) -> None:
    console = Console()
    labels = [label for label, _, _ in PROBES]
    trips = Table(title=f"Tool round trips: medians of {calls} calls, ms (ratio to the no-op)")
    trips.add_column("transport")
    for label in labels:
        trips.add_column(label, justify="right")
    trips.add_column(f"target <= {RATIO_TARGET}x", justify="right")
    for transport, medians in figures.items():
        if transport == "episodes_per_second":
            continue
        noop = medians["no-op"]
        cells = [f"{medians[label]:.2f}" for label in labels[:1]]
        cells += [f"{medians[label]:.2f} ({medians[label] / noop:.2f}x)" for label in labels[1:]]
        ratio = medians[labels[-1]] / noop
        # In process the no-op costs microseconds, so a ratio there is not the target's.
        verdict = "" if transport.startswith("in process") else _verdict(ratio <= RATIO_TARGET)
        trips.add_row(transport, *cells, verdict)
    console.print(trips)
    rate = Table(title=f"Episodes per second, in process ({episodes} episodes, rule-based user)")
    for col in ("mode", "episodes/s", "target", ""):
        rate.add_column(col, justify="left" if col == "mode" else "right")
    for mode, per_second in figures["episodes_per_second"].items():
        rate.add_row(
            mode, f"{per_second:.0f}", f">= {EPISODES_TARGET:.0f}",
            _verdict(per_second >= EPISODES_TARGET),
        )  # fmt: skip
    console.print(rate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="Round trips per tool.")
    parser.add_argument("--episodes", type=int, default=300, help="Episodes per rate run.")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="taurec-bench-") as tmp:
        figures = anyio.run(measure, args.calls, args.episodes, Path(tmp))
    if args.json:
        print(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())
    else:
        render(figures, args.calls, args.episodes)


if __name__ == "__main__":
    main()
