"""An OpenAI Agents SDK agent playing taurec episodes through `MCPServerStdio`.

Each episode runs its own server in bound mode (`taurec serve --task T --trial K`), so the
agent needs no episode ids: it starts the episode, talks to the simulated user through
send_message, looks titles up, and commits with recommend. Its instructions are the
server's own `contestant` prompt. The agent's token usage goes to the server with every
tool call (MCP `_meta`), so it lands in each log's end record.

    pip install "openai-agents>=0.20,<0.21"   # see docs/integrations.md for why this pin
    export OPENAI_API_KEY=...
    python examples/openai_agents_sdk.py --model gpt-4.1-mini --task t001 --trials 3 \\
        --log-dir logs/agents-sdk
    evaluator score logs/agents-sdk

Other providers through the SDK's litellm support: `--model litellm/anthropic/claude-...`
(`pip install "openai-agents[litellm]"`).
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
from typing import Any

from agents import Agent, ModelSettings, Runner
from agents.exceptions import AgentsException
from agents.mcp import MCPServerStdio, create_static_tool_filter
from agents.models.interface import Model

#: Tools a harness uses; the agent is not shown them.
HARNESS_TOOLS = ["list_tasks", "server_info", "abort_episode"]
KICKOFF = "Start the taurec episode now and play it to the end, following the policy."


def serve_command(serve: str | None) -> list[str]:
    return shlex.split(serve) if serve else [sys.executable, "-m", "taurec.clients.cli.serve"]


def usage_meta(context: Any) -> dict[str, Any]:
    """The run's token usage so far, as taurec reads it from a tool call's `_meta`."""
    usage = context.run_context.usage
    return {
        "taurec/usage": {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "cost_usd": None,  # the SDK does not price calls
        }
    }


async def play(
    task_id: str,
    trial: int,
    *,
    model: str | Model,
    log_dir: str,
    label: str = "openai-agents-sdk",
    max_turns: int = 60,
    serve: str | None = None,
) -> str:
    """One episode in a fresh bound-mode server; the agent's final words."""
    command, *args = serve_command(serve)
    args += ["--task", task_id, "--trial", str(trial), "--log-dir", log_dir, "--label", label]
    async with MCPServerStdio(
        params={"command": command, "args": args},
        name="taurec",
        client_session_timeout_seconds=60,
        tool_filter=create_static_tool_filter(blocked_tool_names=HARNESS_TOOLS),
        use_structured_content=True,
        tool_meta_resolver=usage_meta,
    ) as server:
        prompt = await server.get_prompt("contestant")
        instructions = "\n".join(getattr(m.content, "text", "") for m in prompt.messages)
        agent = Agent(
            name="taurec-contestant",
            instructions=instructions,
            mcp_servers=[server],
            model=model,
            model_settings=ModelSettings(temperature=0),
        )
        try:
            result = await Runner.run(agent, KICKOFF, max_turns=max_turns)
            final = str(result.final_output)
        except AgentsException as exc:  # e.g. MaxTurnsExceeded
            final = f"{type(exc).__name__}: {exc}"
        # An episode the agent left open ends as agent_error (an error if it has ended).
        await server.call_tool(
            "abort_episode", {"reason": "agent_error", "detail": f"agent stopped: {final[:500]}"}
        )
        return final


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gpt-4.1-mini")
    parser.add_argument("--task", default="t001")
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--log-dir", default="logs")
    parser.add_argument("--label", default=None, help="default: agents-sdk:<model>")
    parser.add_argument(
        "--serve", help="server command (default: python -m taurec.clients.cli.serve)"
    )
    args = parser.parse_args(argv)
    label = args.label or f"agents-sdk:{args.model}"
    for trial in range(args.trials):
        final = await play(
            args.task, trial, model=args.model, log_dir=args.log_dir, label=label, serve=args.serve
        )
        print(f"{args.task} trial {trial}: {final}")
    print(f"score it: evaluator score {args.log_dir}")


if __name__ == "__main__":
    asyncio.run(main())
