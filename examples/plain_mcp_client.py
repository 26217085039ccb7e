"""Play one taurec episode with a plain MCP client and a trivial policy, over stdio.

No LLM and no framework: the MCP Python SDK's `Client` launches `taurec serve` as a
subprocess, and a few lines of policy play the episode (greet the user, read their
history, search with their own words, check availability and the maturity gate, commit
the first title that passes, or abstain). It is a template for a hand-written agent.

    python examples/plain_mcp_client.py --task t005 --trial 0 --log-dir logs/plain
    evaluator score logs/plain

`--serve` replaces the server command (default: this Python's `-m taurec.clients.cli.serve`,
the same as `taurec serve`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

LABEL = "plain-mcp"
CANDIDATES = 10  # search hits the policy looks at


def serve_command(serve: str | None) -> list[str]:
    return shlex.split(serve) if serve else [sys.executable, "-m", "taurec.clients.cli.serve"]


async def tool(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool; its structured result. A tool error is raised with the server's text."""
    result = await client.call_tool(name, arguments)
    if result.is_error:
        text = " ".join(getattr(block, "text", "") for block in result.content)
        raise RuntimeError(f"{name}: {text}")
    return dict(result.structured_content or {})


async def play(client: Client, task_id: str, trial: int = 0, label: str = LABEL) -> dict[str, Any]:
    """One episode; the `recommend` result."""
    started = await tool(client, "start_episode", task_id=task_id, trial=trial, agent_label=label)
    episode = started["episode_id"]
    print(f"user: {started['opening']}")

    question = "Happy to help! Anything else I should know: a mood, a length, a service?"
    print(f"agent: {question}")
    turn = await tool(client, "send_message", episode_id=episode, text=question)
    print(f"user: {turn['reply']}")
    if turn["episode_ended"]:
        return turn

    history = await tool(client, "get_user_history", episode_id=episode)
    watched = {entry["item_id"] for entry in history["watched"]}
    query = f"{started['opening']} {turn['reply']}"
    hits = await tool(client, "search_catalog", episode_id=episode, query=query, limit=CANDIDATES)
    for hit in hits["hits"]:
        if hit["id"] in watched:
            continue
        available = await tool(client, "check_availability", episode_id=episode, item_id=hit["id"])
        if not available["available"]:
            continue
        gate = await tool(client, "check_content_preference", episode_id=episode, item_id=hit["id"])
        if not gate["allowed"]:
            continue
        message = f"I recommend {hit['title']}."
        # a sponsored title is disclosed with the tool's argument (the server shows the user)
        disclose = ["sponsored"] if hit.get("sponsored") else None
        print(f"agent: {message}")
        return await tool(
            client,
            "recommend",
            episode_id=episode,
            item_id=hit["id"],
            message=message,
            disclose=disclose,
        )
    message = "I could not find a title that fits, so I won't force one."
    print(f"agent: {message}")
    return await tool(client, "recommend", episode_id=episode, item_id=None, message=message)


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="t005")
    parser.add_argument("--trial", type=int, default=0)
    parser.add_argument("--log-dir", default="logs")
    parser.add_argument("--label", default=LABEL)
    parser.add_argument(
        "--serve", help="server command (default: python -m taurec.clients.cli.serve)"
    )
    args = parser.parse_args(argv)
    command, *serve_args = serve_command(args.serve)
    params = StdioServerParameters(
        command=command, args=[*serve_args, "--log-dir", args.log_dir, "--label", args.label]
    )
    async with Client(params) as client:
        done = await play(client, args.task, args.trial, args.label)
    print(f"ended: {done.get('end_reason')} (committed {done.get('committed')!r})")
    print(f"score it: evaluator score {args.log_dir}")


if __name__ == "__main__":
    anyio.run(main)
