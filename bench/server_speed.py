"""How much the server adds: tool round trips per transport, and episodes per second.

    python bench/server_speed.py              # 200 round trips per tool and client, 300 episodes
    python bench/server_speed.py --calls 50 --episodes 100 --json

Round trips: the median time of `filter_catalog` (1 and 10 items of the built-in catalog)
next to a no-op tool (`server_info`) on the same connection, over stdio and over
Streamable HTTP (each a `taurec serve` subprocess), and in process without a transport
(what the server itself spends). Target: filter_catalog (10 items) within 1.5x of the
no-op on the same transport.

Two clients take turns on each connection, both from the MCP Python SDK:

- `Client.call_tool`, the high-level client. After every successful call it validates
  the structured result against the tool's output schema with `jsonschema` (pure
  Python), an optional client-side check whose cost grows with the result: about 1 ms for
  a 10-item page, half a stdio no-op round trip. `ClientSession.call_tool` does the same.
- `ClientSession.send_request(CallToolRequest, CallToolResult)`, the session's own
  request path: the same JSON-RPC request, and the reply parsed into the same typed
  `CallToolResult` (pydantic), without that output-schema validation. This is the
  figure the target is judged on: it measures what the server and the transport add.

The client-side validation of one 10-item result is also timed on its own, so the gap
between the two clients is accounted for. Calls run in a shuffled order with this
process's garbage collector paused while they are timed (see `round_trips`). The in-process
figures come from a hot loop: inside a server that waits for each request, the same work
takes about three times as long (caches go cold between requests), so they understate what
a round trip pays for the server's work. Episodes per second: a scripted agent (start,
two messages, search, filter, availability, recommend) against the rule-based user, in
process (target: at least 100/s), sequentially and 16 at a time.
"""

from __future__ import annotations

import argparse
import gc
import random
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
import mcp_types as types
import orjson
from mcp import Client, StdioServerParameters
from mcp.server import MCPServer
from rich import box
from rich.console import Console
from rich.table import Table

from taurec.server.app import build_server
from taurec.server.defaults import MAX_TOOL_CALLS_PER_EPISODE
from taurec.server.settings import ServerSettings

SERVE = [sys.executable, "-m", "taurec.clients.cli.serve"]
RATIO_TARGET = 1.5
EPISODES_TARGET = 100.0
FILTER = {"genres_any": ["Drama", "Comedy"], "runtime_max": 130, "min_rating": 5, "limit": 10}


Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
#: (row label, tool, arguments without the episode id)
PROBES = [
    ("no-op", "server_info", None),
    ("filter 1", "filter_catalog", {**FILTER, "limit": 1}),
    ("filter 10", "filter_catalog", FILTER),
]
#: The two clients, as labelled in the table and the JSON.
VALIDATING = "Client.call_tool"
PLAIN = "session.send_request"
DIRECT = "server.call_tool"
LEGEND = (
    f"{VALIDATING}: the SDK's high-level client; validates every structured result against "
    f"the tool's output schema (jsonschema).\n{PLAIN}: ClientSession.send_request, the SDK "
    "session's request path: the same request and typed CallToolResult, without that "
    f"validation. The target is judged on this one.\n{DIRECT}: MCPServer.call_tool, the "
    "server object called directly (no transport, no client)."
)


#: Calls on one episode before the next round starts another: below the server's
#: per-episode tool-call limit (MAX_TOOL_CALLS_PER_EPISODE).
EPISODE_CALLS = MAX_TOOL_CALLS_PER_EPISODE - 20


async def round_trips(callers: dict[str, Call], calls: int) -> dict[str, dict[str, float]]:
    """Median milliseconds of each probe per client, on one connection.

    Every round runs each (client, probe) pair once, in a shuffled order (seeded). As in
    `timeit`, this process's garbage collector is off while a round is timed and runs
    between rounds: otherwise a call's garbage (the validating client's jsonschema
    objects, say) would be collected, and billed, during whichever call comes next. The
    server's own process is untouched.
    """
    first = next(iter(callers.values()))
    eid = (await first("start_episode", {"task_id": "t001"}))["episode_id"]
    used = 0  # calls on `eid`: a fresh episode (untimed) before the server's per-episode limit
    pairs = [(client, probe) for client in callers for probe in PROBES]
    timings: dict[str, dict[str, list[float]]] = {
        client: {label: [] for label, _, _ in PROBES} for client in callers
    }
    rng = random.Random(0)
    gc.collect()
    gc.freeze()  # what exists now lives on: the collections between rounds skip it
    try:
        for i in range(calls + 10):
            rng.shuffle(pairs)
            gc.disable()
            if used + len(pairs) > EPISODE_CALLS:
                await first("abort_episode", {"episode_id": eid, "reason": "agent_error"})
                eid = (await first("start_episode", {"task_id": "t001"}))["episode_id"]
                used = 0
            used += len(pairs)
            for client, (label, name, args) in pairs:
                request = {} if args is None else {"episode_id": eid, **args}
                t0 = time.perf_counter()
                await callers[client](name, request)
                if i >= 10:  # warm-up rounds are not counted
                    timings[client][label].append((time.perf_counter() - t0) * 1000)
            gc.enable()
            gc.collect()
    finally:
        gc.enable()
        gc.unfreeze()
    return {
        client: {label: statistics.median(ms) for label, ms in by_probe.items()}
        for client, by_probe in timings.items()
    }


def validating_caller(client: Client) -> Call:
    """The high-level client: validates each structured result against the output schema."""

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(name, args)
        assert not result.is_error, result.content
        return result.structured_content or {}

    return call


def _plain_request(client: Client, name: str, args: dict[str, Any]) -> Awaitable[Any]:
    request = types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=args))
    return client.session.send_request(request, types.CallToolResult)


def plain_caller(client: Client) -> Call:
    """The session's request path: the reply parsed into a typed CallToolResult, without
    the optional output-schema validation."""

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await _plain_request(client, name, args)
        assert isinstance(result, types.CallToolResult) and not result.is_error, result
        return result.structured_content or {}

    return call


async def validation_ms(client: Client, calls: int) -> float:
    """Median milliseconds the SDK client spends validating one 10-item filter_catalog
    result against the tool's output schema (what Client.call_tool adds per call)."""
    eid = (await validating_caller(client)("start_episode", {"task_id": "t001"}))["episode_id"]
    result = await _plain_request(client, "filter_catalog", {"episode_id": eid, **FILTER})
    await client.session.validate_tool_result("filter_catalog", result)  # schema cached
    times = []
    for _ in range(calls):
        gc.disable()  # as in round_trips
        t0 = time.perf_counter()
        await client.session.validate_tool_result("filter_catalog", result)
        times.append((time.perf_counter() - t0) * 1000)
        gc.enable()
    return statistics.median(times)


async def over_connection(client: Client, calls: int) -> tuple[dict[str, Any], float]:
    """Round trips with both clients, and the validating client's validation time."""
    callers = {VALIDATING: validating_caller(client), PLAIN: plain_caller(client)}
    return await round_trips(callers, calls), await validation_ms(client, calls)


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
    trips: dict[str, Any] = {}
    validation: dict[str, float] = {}
    server = build_server(ServerSettings(log_dir=log_dir, run_label="bench-direct"))
    trips["in process"] = await round_trips({DIRECT: direct_caller(server)}, calls)
    stdio = StdioServerParameters(command=SERVE[0], args=[*SERVE[1:], "--log-dir", str(log_dir)])
    async with Client(stdio) as client:
        trips["stdio"], validation["stdio"] = await over_connection(client, calls)
    with http_server(log_dir) as url:
        async with Client(url) as client:
            trips["http"], validation["http"] = await over_connection(client, calls)
    ratios = {
        transport: {client: m["filter 10"] / m["no-op"] for client, m in by_client.items()}
        for transport, by_client in trips.items()
    }
    return {
        "clients": dict(line.split(": ", 1) for line in LEGEND.splitlines()),
        "round_trips_ms": trips,
        "filter_10_to_no_op": ratios,
        "ratio_target": RATIO_TARGET,
        "client_validation_ms": validation,
        "episodes_per_second": {
            "sequential": await episodes_per_second(episodes, 1, log_dir),
            "16 at a time": await episodes_per_second(episodes, 16, log_dir),
        },
    }


def _verdict(ok: bool) -> str:
    return "ok" if ok else "SLOW"


def render(figures: dict[str, Any], calls: int, episodes: int) -> None:
    console = Console()
    labels = [label for label, _, _ in PROBES]
    trips = Table(
        title=f"Tool round trips: medians of {calls} calls, ms "
        f"(target: filter 10 <= {RATIO_TARGET}x no-op)",
        box=box.SIMPLE_HEAD,
    )
    trips.add_column("transport", no_wrap=True)
    trips.add_column("client", no_wrap=True)
    for label in labels:
        trips.add_column(label, justify="right")
    trips.add_column("ratio", justify="right", no_wrap=True)
    for transport, by_client in figures["round_trips_ms"].items():
        for client, medians in by_client.items():
            ratio = figures["filter_10_to_no_op"][transport][client]
            # In process the no-op costs microseconds, so a ratio there is not the target's.
            verdict = "" if client == DIRECT else f" {_verdict(ratio <= RATIO_TARGET)}"
            cells = [f"{medians[label]:.2f}" for label in labels]
            trips.add_row(transport, client, *cells, f"{ratio:.2f}x{verdict}")
    console.print(trips)
    console.print(LEGEND, highlight=False)
    alone = ", ".join(f"{t} {ms:.2f} ms" for t, ms in figures["client_validation_ms"].items())
    console.print(
        "The client's output-schema validation of one 10-item filter_catalog result, "
        f"alone: {alone}",
        highlight=False,
    )
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
