"""A litellm tool-calling loop over taurec's MCP tools, with litellm's own MCP helpers.

`litellm.experimental_mcp_client.load_mcp_tools(session, format="openai")` turns the
server's tools into function-calling tools for any litellm model, and `call_openai_tool`
runs a model's tool call on the MCP session. The server runs in bound mode (one episode,
no episode ids), started as a subprocess over stdio; the model reads the `contestant`
prompt, starts the episode, talks to the simulated user through send_message, and
commits with recommend. (`taurec run --agent llm` is the benchmark's own, more careful
version of this loop: clients/agents/llm.py.)

    export OPENAI_API_KEY=...        # or any provider litellm knows, see .env.example
    python examples/litellm_mcp.py --model openai/gpt-4o-mini --task t001 --log-dir logs/litellm
    evaluator score logs/litellm

Offline, without a key: `--model mock` has litellm answer each call with a scripted move
(`mock_tool_calls`): start the episode, search the catalog for the user's opening words,
recommend the first hit. It tests the loop, not a model.

Every model call is logged with the tool call it led to (a `ModelCallRecorder`'s
`meta()` in the call's `_meta`: the messages sent, the reply, tokens and time), and the
first call names the model, so `evaluator view` shows each call as for taurec's own agent.

It ends with the episode's score, or with one line saying what stopped it (a missing key,
a server that would not start, a failed model call: that episode is aborted as
infra_error); `--traceback` shows where instead.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections.abc import Callable
from typing import Any

from taurec.clients.agents.model_calls import ModelCallRecorder
from taurec.clients.frameworks.mcp_examples import (
    find_log,
    new_run_label,
    run,
    score_line,
    serve_command,
    stdio_server_down,
)

#: Tools a harness uses; the model is not shown them.
HARNESS_TOOLS = {"list_tasks", "server_info", "abort_episode"}
KICKOFF = "Start the taurec episode now and play it to the end, following the policy."
#: The model that plays offline: litellm answers with mock_move's scripted calls.
MOCK_MODEL = "mock"


def missing_key(model: str) -> str | None:
    """One line naming the variable `model` lacks, told before litellm's slow import."""
    if model == MOCK_MODEL:
        return None
    from dotenv import load_dotenv

    from taurec.catalog.llm_runtime import missing_credentials

    load_dotenv(".env", override=False)  # a key kept in ./.env, as taurec's commands read it

    missing = missing_credentials(model)
    if not missing:
        return None
    return (
        f"error: --model {model}: {', '.join(missing)} not set (export it, or put it in .env); "
        f"to run offline without a key: --model {MOCK_MODEL}"
    )


def mock_move(messages: list[Any]) -> dict[str, Any]:
    """litellm keyword arguments that answer the next call with the mock's move."""
    results = []
    for m in messages:
        if isinstance(m, dict) and m.get("role") == "tool":
            try:
                results.append(json.loads(m["content"]))
            except ValueError:
                results.append({})
    last = results[-1] if results and isinstance(results[-1], dict) else {}
    if not results:
        name, arguments = "start_episode", {}
    elif "opening" in last:
        name, arguments = "search_catalog", {"query": last["opening"], "limit": 5}
    else:
        hits = last.get("hits") or [{}]
        item = hits[0].get("id") if isinstance(hits[0], dict) else None
        name, arguments = "recommend", {"item_id": item, "message": "This one fits your ask."}
    function = {"name": name, "arguments": json.dumps(arguments)}
    call = {"id": f"mock-{len(messages)}", "type": "function", "function": function}
    return {"model": f"openai/{MOCK_MODEL}", "mock_response": "", "mock_tool_calls": [call]}


async def mock_completion(**kwargs: Any) -> Any:
    """litellm.acompletion answering with mock_move, offline."""
    from taurec.catalog.llm_runtime import load_litellm

    return await load_litellm().acompletion(**{**kwargs, **mock_move(kwargs["messages"])})


async def play(
    task_id: str,
    trial: int,
    *,
    model: str,
    log_dir: str,
    label: str = "litellm-mcp",
    max_steps: int = 40,
    serve: str | None = None,
    completion: Callable[..., Any] | None = None,
    run_label: str | None = None,
) -> str | None:
    """One episode in a fresh bound-mode server; how it ended (None if the model stopped
    before the end, in which case it is aborted as agent_error). `completion` defaults to
    litellm.acompletion; a call that fails aborts the episode as infra_error and raises.
    `run_label` names the log sub-folder (default: the server's time-stamped one)."""
    # imported here: litellm takes seconds, and a missing key is told before (main);
    # load_litellm first: offline price map, no banners, no debug prints
    from taurec.catalog.llm_runtime import load_litellm

    litellm = load_litellm()
    from litellm.experimental_mcp_client import load_mcp_tools
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    completion = completion or litellm.acompletion
    command, *args = serve_command(serve)
    args += ["--task", task_id, "--trial", str(trial), "--log-dir", log_dir, "--label", label]
    args += ["--run-label", run_label] if run_label else []
    # the server gets this environment: its log key, and any key an LLM simulated user needs
    params = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = [
            tool
            for tool in await load_mcp_tools(session=session, format="openai")
            if tool["function"]["name"] not in HARNESS_TOOLS  # type: ignore[index]
        ]
        prompt = await session.get_prompt("contestant")
        system = "\n".join(getattr(m.content, "text", "") for m in prompt.messages)
        messages: list[Any] = [
            {"role": "system", "content": system},
            {"role": "user", "content": KICKOFF},
        ]
        calls = ModelCallRecorder(kind="litellm-mcp", model=model, settings={"temperature": 0})
        for _ in range(max_steps):
            started = time.perf_counter()
            try:
                response = await completion(
                    model=model, messages=messages, tools=tools, temperature=0, drop_params=True
                )
            except Exception as exc:  # the provider failed: the episode says so, then stop
                detail = f"model call failed: {type(exc).__name__}: {exc}"[:2000]
                calls.record(messages=messages, error=detail)
                await session.call_tool(
                    "abort_episode", {"reason": "infra_error", "detail": detail}, meta=calls.meta()
                )
                raise
            message = response.choices[0].message
            reply = message.model_dump(exclude_none=True)
            took = (time.perf_counter() - started) * 1000
            calls.record(
                messages=messages,
                output=reply,
                tools=tools,
                usage=_usage(response),
                latency_ms=took,
            )  # sent with the next tool call
            messages.append(reply)
            if not message.tool_calls:
                break  # the model answered in text: it has stopped
            for call in message.tool_calls:
                arguments = json.loads(call.function.arguments or "{}")
                result = await session.call_tool(call.function.name, arguments, meta=calls.meta())
                text = "\n".join(getattr(block, "text", "") for block in result.content)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
                ended = (result.structured_content or {}).get("episode_ended")
                if ended:
                    return str((result.structured_content or {}).get("end_reason"))
        await session.call_tool(
            "abort_episode",
            {"reason": "agent_error", "detail": "the model stopped"},
            meta=calls.meta(),
        )
        return None


def _usage(response: Any) -> dict[str, int] | None:
    """The call's tokens, as the provider counted them (None when it says nothing)."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    counts = {k: getattr(usage, k, None) for k in ("prompt_tokens", "completion_tokens")}
    return {k: v for k, v in counts.items() if isinstance(v, int)} or None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", required=True, help=f"a litellm model string, or {MOCK_MODEL} (offline)"
    )
    parser.add_argument("--task", default="t001")
    parser.add_argument("--trial", type=int, default=0)
    parser.add_argument("--log-dir", default="logs")
    parser.add_argument("--label", default=None, help="default: litellm-mcp:<model>")
    parser.add_argument(
        "--serve", help="server command (default: python -m taurec.clients.cli.serve)"
    )
    parser.add_argument("--traceback", action="store_true", help="show where an error arose")
    args = parser.parse_args(argv)
    if (why := missing_key(args.model)) is not None:
        sys.exit(why)
    run_label = new_run_label()

    async def episode() -> None:
        ended = await play(
            args.task,
            args.trial,
            model=args.model,
            log_dir=args.log_dir,
            label=args.label or f"litellm-mcp:{args.model}",
            serve=args.serve,
            completion=mock_completion if args.model == MOCK_MODEL else None,
            run_label=run_label,
        )
        print(f"ended: {ended or 'agent_error (the model stopped)'}")
        print(score_line(find_log(args.log_dir, run_label=run_label), args.log_dir))

    run(
        episode,
        server_down=stdio_server_down(shlex.join(serve_command(args.serve))),
        offline=f"--model {MOCK_MODEL}",
        install="pip install -e . (litellm comes with taurec)",
        traceback=args.traceback,
    )


if __name__ == "__main__":
    main()
