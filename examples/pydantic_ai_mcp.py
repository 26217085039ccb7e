"""A pydantic-ai agent playing one taurec episode through pydantic-ai's `MCPToolset`.

The harness starts the episode (start_episode with the task, trial and label), gives the
agent the user's opening as its prompt, and fills the episode id into every tool call, so
the model never sees one. The agent looks titles up and commits with recommend; its
plain-text replies go to the user with send_message, and the user's answer is its next
prompt (one `agent.iter` per turn, on one message history). Its instructions are the
server's `contestant` prompt plus a note on how this harness runs the episode. Every model
call (the model wrapped in `recorded`: the messages sent, the response, its tokens and
time) goes to the server with the next tool call (MCP `_meta`), logged as a `model_call`
event, the start naming the model; its token usage goes the same way, so it lands in the
log's end record.

    pip install "pydantic-ai-slim[mcp,openai]>=2.31,<3"
    export OPENAI_API_KEY=...
    python examples/pydantic_ai_mcp.py --model openai:gpt-4o-mini --task t001 --log-dir logs/pai

Over stdio the example starts `taurec serve` itself. With `--url` it plays against a
running Streamable HTTP server, which several agents may share (each episode has its own
id); `--log-dir` then names that server's log folder, to print the score:

    taurec serve --transport http --log-dir logs/http &
    python examples/pydantic_ai_mcp.py --model openai:gpt-4o-mini --url http://127.0.0.1:8000/mcp \\
        --log-dir logs/http

Offline, without a key: `--model function` plays with pydantic-ai's `FunctionModel` and a
script: ask the user one question, search the catalog for the user's words, recommend the
first hit. It tests the wiring, not a model. (pydantic-ai's `TestModel` calls every tool
with made-up arguments, which cannot play an episode.)

It ends with the episode's score, or with one line saying what stopped it (a missing key
or package, a server that would not start or answer, a failed model call: the episode is
then aborted as infra_error); `--traceback` shows where instead.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import re
import shlex
import time
from typing import Any

from taurec.clients.agents.model_calls import ModelCallRecorder
from taurec.clients.frameworks.mcp_examples import (
    Stopped,
    find_log,
    run,
    score_line,
    serve_command,
    stdio_server_down,
)

#: Tools the harness uses (start_episode among them); the model is not shown them.
HARNESS_TOOLS = {"start_episode", "list_tasks", "server_info", "abort_episode"}
#: The model name that plays offline with a scripted FunctionModel.
SCRIPTED = "function"
QUESTION = "Happy to help! Anything else I should know: a mood, a length, a service?"
HARNESS_NOTE = """
## How this harness runs the episode

- The episode has already started (skip start_episode): the user's opening message is
  your first prompt. The episode id is filled in for you; no tool takes it.
- To talk to the user, reply with plain text (it is sent with send_message and the
  user's answer is your next prompt), or call send_message yourself.
- The episode ends when you call recommend (a catalog item_id, or null to abstain).
"""


def scripted_move(messages: list[Any], info: Any) -> Any:
    """The offline script, as a pydantic-ai FunctionModel function: a question to the user,
    a search with the user's words, then recommend the first hit."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart

    parts = [part for message in messages for part in message.parts]
    said = [p.content for p in parts if p.part_kind == "user-prompt"]
    last = parts[-1]
    if len(said) == 1:
        return ModelResponse(parts=[TextPart(QUESTION)])
    if isinstance(last, ToolReturnPart) and last.tool_name == "search_catalog":
        hits = last.content.get("hits") if isinstance(last.content, dict) else None
        item = hits[0].get("id") if hits else None
        call = ToolCallPart("recommend", {"item_id": item, "message": "This one fits your ask."})
        return ModelResponse(parts=[call])
    if last.part_kind == "user-prompt":
        query = " ".join(str(text) for text in said)
        return ModelResponse(parts=[ToolCallPart("search_catalog", {"query": query, "limit": 5})])
    return ModelResponse(parts=[TextPart("Done (scripted model).")])


def make_model(name: str) -> Any:
    """The pydantic-ai model `name` names; Stopped with one line when it cannot be made
    (its key is missing, the provider is unknown, or it cannot play)."""
    from dotenv import load_dotenv
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.models import infer_model
    from pydantic_ai.models.function import FunctionModel

    if name == SCRIPTED:
        return FunctionModel(scripted_move)
    if name == "test":
        raise Stopped(
            "--model test: pydantic-ai's TestModel calls every tool with made-up arguments "
            f"and cannot play an episode; to play offline: --model {SCRIPTED}"
        )
    load_dotenv(".env", override=False)  # a key kept in ./.env, as taurec's commands read it
    try:
        return infer_model(name)
    except (UserError, ValueError) as exc:  # e.g. "Set the `OPENAI_API_KEY` environment ..."
        key = re.search(r"`([A-Z0-9_]+)` environment variable", str(exc))
        said = (
            f"{key[1]} not set (export it, or put it in .env)"
            if key
            else str(exc).split(". ")[0].rstrip(".")
        )
        raise Stopped(
            f"--model {name}: {said}; to run offline without a key: --model {SCRIPTED}"
        ) from None


def _without_episode_id(schema: dict[str, Any]) -> dict[str, Any]:
    properties = {k: v for k, v in schema.get("properties", {}).items() if k != "episode_id"}
    required = [name for name in schema.get("required", []) if name != "episode_id"]
    return {**schema, "properties": properties, "required": required}


def recorded(model: Any, calls: ModelCallRecorder) -> Any:
    """`model`, its every request recorded in `calls`."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter
    from pydantic_ai.models.wrapper import WrapperModel

    class Recorded(WrapperModel):
        async def request(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            response = await super().request(messages, *args, **kwargs)
            sent = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
            (reply,) = ModelMessagesTypeAdapter.dump_python([response], mode="json")
            usage = response.usage
            calls.record(
                messages=sent,
                output={"role": "assistant", "content": reply.get("parts")},
                usage={
                    "prompt_tokens": usage.input_tokens,
                    "completion_tokens": usage.output_tokens,
                },
                latency_ms=(time.perf_counter() - started) * 1000,
            )
            return response

    return Recorded(model)


async def play(
    task_id: str,
    trial: int,
    *,
    model: Any,
    log_dir: str,
    label: str = "pydantic-ai",
    url: str | None = None,
    serve: str | None = None,
    max_turns: int = 20,
    max_requests: int = 60,
) -> tuple[str, str | None]:
    """One episode, over stdio (a fresh `taurec serve`) or at `url`; its id and how it
    ended (None when the agent stopped first: it is then aborted as agent_error). A model
    call that fails aborts the episode as infra_error and raises."""
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import AgentRunError, ModelAPIError, ModelRetry
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.usage import RunUsage, UsageLimits

    episode: dict[str, Any] = {"id": None, "ended": None}
    usage = RunUsage()
    named = getattr(model, "model_name", None) or str(model)
    calls = ModelCallRecorder(kind="pydantic-ai", model=named, settings={"temperature": 0})

    def meta() -> dict[str, Any] | None:
        """The calls queued, and the run's usage so far (taurec/usage)."""
        spent = {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "cost_usd": None,  # pydantic-ai does not price the calls here
        }
        return calls.meta({"taurec/usage": spent})

    async def fill_in(ctx: Any, call_tool: Any, name: str, arguments: dict[str, Any]) -> Any:
        """Every call: the episode's id, and the model calls and usage (meta)."""
        result = await call_tool(name, {**arguments, "episode_id": episode["id"]}, metadata=meta())
        if isinstance(result, dict) and result.get("episode_ended"):
            episode["ended"] = str(result.get("end_reason"))
        return result

    async def offered(ctx: Any, tools: list[Any]) -> list[Any]:
        """The tools the model sees: no harness tool, and no episode_id anywhere."""
        return [
            dataclasses.replace(tool, parameters_json_schema=_without_episode_id(schema))
            for tool in tools
            if tool.name not in HARNESS_TOOLS
            for schema in [tool.parameters_json_schema]
        ]

    if url is None:
        command, *args = serve_command(serve)
        args += ["--log-dir", log_dir, "--label", label]
        # the server gets this environment: its log key, and any key an LLM user needs
        server: Any = StdioTransport(command, args, env=dict(os.environ), keep_alive=False)
    else:
        server = url
    toolset = MCPToolset(server, process_tool_call=fill_in, init_timeout=60)
    async with toolset:
        try:
            started = await toolset.direct_call_tool(
                "start_episode",
                {"task_id": task_id, "trial": trial, "agent_label": label},
                metadata=meta(),  # names the model in the log header
            )
        except ModelRetry as exc:  # the server refused: its own words say why
            said = str(exc).removeprefix("Error executing tool start_episode: ")
            raise Stopped(f"the server would not start the episode: {said}") from None
        episode["id"] = started["episode_id"]
        contestant = await toolset.get_prompt("contestant")
        prompt_text = "\n".join(getattr(m.content, "text", "") for m in contestant.messages)
        agent = Agent(
            recorded(model, calls),
            instructions=prompt_text + "\n" + HARNESS_NOTE,
            toolsets=[toolset.prepared(offered)],
            model_settings={"temperature": 0},
        )
        limits = UsageLimits(request_limit=max_requests)
        history: list[Any] = []
        prompt = started["opening"]
        stopped = "the agent stopped"
        try:
            for _ in range(max_turns):
                async with agent.iter(
                    prompt, message_history=history, usage=usage, usage_limits=limits
                ) as agent_run:
                    async for _node in agent_run:
                        if episode["ended"]:
                            break  # recommend ended it: no further model call
                    if episode["ended"] or agent_run.result is None:
                        break
                    history = agent_run.result.all_messages()
                    text = str(agent_run.result.output).strip()
                if not text:
                    break  # the agent has nothing more to say: it stopped
                turn = await toolset.direct_call_tool(
                    "send_message", {"episode_id": episode["id"], "text": text}, metadata=meta()
                )
                if turn.get("episode_ended"):
                    episode["ended"] = str(turn.get("end_reason"))
                    break
                prompt = turn["reply"]
        except ModelAPIError as exc:  # the provider failed: the episode says so, then stop
            detail = f"model call failed: {type(exc).__name__}: {exc}"[:2000]
            await _abort(toolset, episode["id"], "infra_error", detail, meta())
            raise
        except (AgentRunError, ModelRetry) as exc:  # the agent failed (not the provider)
            stopped = f"{type(exc).__name__}: {exc}"  # e.g. UsageLimitExceeded
        if not episode["ended"]:
            await _abort(toolset, episode["id"], "agent_error", stopped, meta())
    return episode["id"], episode["ended"]


async def _abort(
    toolset: Any, episode_id: str, reason: str, detail: str, meta: dict[str, Any] | None
) -> None:
    from pydantic_ai.exceptions import ModelRetry

    arguments = {"episode_id": episode_id, "reason": reason, "detail": detail[:2000]}
    with contextlib.suppress(ModelRetry):  # it had ended meanwhile
        await toolset.direct_call_tool("abort_episode", arguments, metadata=meta)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model",
        default="openai:gpt-4o-mini",
        help=f"a pydantic-ai model string (provider:model), or {SCRIPTED} (offline)",
    )
    parser.add_argument("--task", default="t001")
    parser.add_argument("--trial", type=int, default=0)
    parser.add_argument("--log-dir", default="logs", help="where the server writes its logs")
    parser.add_argument("--label", default=None, help="default: pydantic-ai:<model>")
    parser.add_argument("--url", help="a running server (taurec serve --transport http)")
    parser.add_argument(
        "--serve", help="server command (default: python -m taurec.clients.cli.serve)"
    )
    parser.add_argument("--traceback", action="store_true", help="show where an error arose")
    args = parser.parse_args(argv)

    async def episode() -> None:
        model = make_model(args.model)
        episode_id, ended = await play(
            args.task,
            args.trial,
            model=model,
            log_dir=args.log_dir,
            label=args.label or f"pydantic-ai:{args.model}",
            url=args.url,
            serve=args.serve,
        )
        print(f"ended: {ended or 'agent_error (the agent stopped)'}")
        print(score_line(find_log(args.log_dir, episode_id=episode_id), args.log_dir))

    if args.url:
        down = (
            f"no taurec server answers at {args.url}; start one with: taurec serve --transport http"
        )
    else:
        down = stdio_server_down(shlex.join(serve_command(args.serve)))
    run(
        episode,
        server_down=down,
        offline=f"--model {SCRIPTED}",
        install='pip install "pydantic-ai-slim[mcp,openai]>=2.31,<3"',
        traceback=args.traceback,
    )


if __name__ == "__main__":
    main()
