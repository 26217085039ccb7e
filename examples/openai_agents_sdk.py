"""An OpenAI Agents SDK agent playing taurec episodes through `MCPServerStdio`.

Each episode runs its own server in bound mode (`taurec serve --task T --trial K`), so the
agent needs no episode ids: it starts the episode, talks to the simulated user through
send_message, looks titles up, and commits with recommend. Its instructions are the
server's own `contestant` prompt. Every model call (the SDK's `RunHooks.on_llm_start` and
`on_llm_end`: the input, the response, its tokens and time) goes to the server with the
next tool call (MCP `_meta`, by the server's `tool_meta_resolver`), logged as a
`model_call` event, the first call naming the model; the run's token usage goes the same
way, so it lands in each log's end record.

    pip install "openai-agents>=0.20,<0.21"   # see docs/integrations.md for why this pin
    export OPENAI_API_KEY=...
    python examples/openai_agents_sdk.py --model gpt-4.1-mini --task t001 --trials 3 \\
        --log-dir logs/agents-sdk
    evaluator score logs/agents-sdk

Other providers through the SDK's litellm support: `--model litellm/anthropic/claude-...`
(`pip install "openai-agents[litellm]"`).

Offline, without a key: `--model scripted` plays with a scripted `Model` (the SDK takes
any `agents.models.interface.Model` in place of a model name): start the episode, search
the catalog for the user's opening words, recommend the first hit. It tests the wiring,
not a model.

Each episode ends with its score; anything that stops the example (a missing key or
package, a server that would not start, a failed model call: that episode is aborted as
infra_error) ends it with one line; `--traceback` shows where instead.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import sys
import time
from typing import TYPE_CHECKING, Any

from taurec.clients.agents.model_calls import ModelCallRecorder
from taurec.clients.frameworks.mcp_examples import (
    find_log,
    new_run_label,
    run,
    score_line,
    serve_command,
    stdio_server_down,
)

if TYPE_CHECKING:  # the SDK is imported where it is used: a missing key is told first
    from agents.models.interface import Model

#: Tools a harness uses; the agent is not shown them.
HARNESS_TOOLS = ["list_tasks", "server_info", "abort_episode"]
KICKOFF = "Start the taurec episode now and play it to the end, following the policy."
#: The model name that plays offline with scripted_model().
SCRIPTED = "scripted"


def missing_key(model: str) -> str | None:
    """One line naming the variable `model` lacks, told before the SDK's slow import."""
    if model == SCRIPTED:
        return None
    from dotenv import load_dotenv

    load_dotenv(".env", override=False)  # a key kept in ./.env, as taurec's commands read it
    if model.startswith("litellm/"):  # the SDK's litellm models: litellm's own check
        from taurec.catalog.llm_runtime import missing_credentials

        missing = missing_credentials(model.removeprefix("litellm/"))
    else:  # a model name the SDK sends to OpenAI
        missing = [] if os.environ.get("OPENAI_API_KEY") else ["OPENAI_API_KEY"]
    if not missing:
        return None
    return (
        f"error: --model {model}: {', '.join(missing)} not set (export it, or put it in .env); "
        f"to run offline without a key: --model {SCRIPTED}"
    )


def next_move(outputs: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """The scripted play's next tool call from the tool outputs so far (JSON objects);
    None when it is done."""
    last = outputs[-1] if outputs else None
    if last is None:
        return "start_episode", {}
    if "opening" in last:
        return "search_catalog", {"query": last["opening"], "limit": 5}
    if "hits" in last:
        hits = last["hits"] or [{}]
        item = hits[0].get("id") if isinstance(hits[0], dict) else None
        return "recommend", {"item_id": item, "message": "This one fits your ask."}
    return None


def scripted_model() -> Model:
    """A Model that plays next_move's script, offline; its final words say so."""
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    def outputs(items: Any) -> list[dict[str, Any]]:
        found = []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                try:
                    data = json.loads(str(item.get("output", "")))
                except ValueError:
                    data = None
                found.append(data if isinstance(data, dict) else {})
        return found

    class ScriptedModel(Model):
        model_name = SCRIPTED  # as the log header names it

        async def get_response(self, system_instructions: Any, input: Any, *a: Any, **k: Any):
            move = next_move(outputs(input))
            usage = Usage(requests=1, input_tokens=0, output_tokens=0, total_tokens=0)
            if move is None:
                text = ResponseOutputText(
                    type="output_text", text="Done (scripted model).", annotations=[]
                )
                done = ResponseOutputMessage(
                    id="scripted", type="message", role="assistant", status="completed",
                    content=[text],
                )  # fmt: skip
                return ModelResponse(output=[done], usage=usage, response_id=None)
            name, arguments = move
            call = ResponseFunctionToolCall(
                type="function_call", call_id=f"scripted-{name}", name=name,
                arguments=json.dumps(arguments),
            )  # fmt: skip
            return ModelResponse(output=[call], usage=usage, response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the scripted model does not stream")

    return ScriptedModel()


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


def _plain(items: Any) -> list[Any]:
    """The SDK's input or output items as plain JSON values."""
    return [i.model_dump(exclude_none=True) if hasattr(i, "model_dump") else i for i in items]


def model_call_hooks(calls: ModelCallRecorder) -> Any:
    """RunHooks that record each model call the run makes in `calls`: the system prompt
    and input items sent, the response's output items, its tokens and time."""
    from agents import RunHooks

    class ModelCalls(RunHooks[Any]):
        def __init__(self) -> None:
            self.sent: list[Any] = []
            self.started = 0.0

        async def on_llm_start(
            self, context: Any, agent: Any, system_prompt: Any, input_items: Any
        ) -> None:
            system = [{"role": "system", "content": system_prompt}] if system_prompt else []
            self.sent, self.started = system + _plain(input_items), time.perf_counter()

        async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
            usage = response.usage
            calls.record(
                messages=self.sent,
                output={"role": "assistant", "content": _plain(response.output)},
                usage={
                    "prompt_tokens": usage.input_tokens,
                    "completion_tokens": usage.output_tokens,
                },
                latency_ms=(time.perf_counter() - self.started) * 1000,
            )

    return ModelCalls()


async def play(
    task_id: str,
    trial: int,
    *,
    model: str | Model,
    log_dir: str,
    label: str = "openai-agents-sdk",
    max_turns: int = 60,
    serve: str | None = None,
    run_label: str | None = None,
) -> str:
    """One episode in a fresh bound-mode server; the agent's final words. A model call
    that fails aborts the episode as infra_error and raises. `run_label` names the log
    sub-folder (default: the server's time-stamped one)."""
    from agents import Agent, ModelSettings, Runner
    from agents.exceptions import AgentsException
    from agents.mcp import MCPServerStdio, create_static_tool_filter

    command, *args = serve_command(serve)
    args += ["--task", task_id, "--trial", str(trial), "--log-dir", log_dir, "--label", label]
    args += ["--run-label", run_label] if run_label else []
    name = model if isinstance(model, str) else getattr(model, "model_name", type(model).__name__)
    calls = ModelCallRecorder(kind="openai-agents-sdk", model=name, settings={"temperature": 0})

    def tool_meta(context: Any) -> dict[str, Any] | None:  # the usage, and the calls queued
        return calls.meta(usage_meta(context))

    async with MCPServerStdio(
        # the server gets this environment: its log key, and any key an LLM user needs
        params={"command": command, "args": args, "env": dict(os.environ)},
        name="taurec",
        client_session_timeout_seconds=60,
        tool_filter=create_static_tool_filter(blocked_tool_names=HARNESS_TOOLS),
        use_structured_content=True,
        tool_meta_resolver=tool_meta,
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
            result = await Runner.run(
                agent, KICKOFF, max_turns=max_turns, hooks=model_call_hooks(calls)
            )
            final = str(result.final_output)
        except AgentsException as exc:  # e.g. MaxTurnsExceeded
            final = f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # the provider failed: the episode says so, then stop
            detail = f"model call failed: {type(exc).__name__}: {exc}"[:2000]
            await server.call_tool(
                "abort_episode", {"reason": "infra_error", "detail": detail}, meta=calls.meta()
            )
            raise
        # An episode the agent left open ends as agent_error (an error if it has ended).
        await server.call_tool(
            "abort_episode",
            {"reason": "agent_error", "detail": f"agent stopped: {final[:500]}"},
            meta=calls.meta(),  # the last model call (its final words)
        )
        return final


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", default="gpt-4.1-mini", help=f"a model name, or {SCRIPTED} (offline)"
    )
    parser.add_argument("--task", default="t001")
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--log-dir", default="logs")
    parser.add_argument("--label", default=None, help="default: agents-sdk:<model>")
    parser.add_argument(
        "--serve", help="server command (default: python -m taurec.clients.cli.serve)"
    )
    parser.add_argument("--traceback", action="store_true", help="show where an error arose")
    args = parser.parse_args(argv)
    if (why := missing_key(args.model)) is not None:
        sys.exit(why)
    label = args.label or f"agents-sdk:{args.model}"

    async def episodes() -> None:
        # the SDK's own error lines ("Error getting response") would come before ours
        logging.getLogger("openai.agents").addHandler(logging.NullHandler())
        if args.model == SCRIPTED or not os.environ.get("OPENAI_API_KEY"):
            from agents import set_tracing_disabled

            set_tracing_disabled(True)  # traces go to OpenAI: not offline, nor without its key
        for trial in range(args.trials):
            model = scripted_model() if args.model == SCRIPTED else args.model
            run_label = new_run_label()
            final = await play(
                args.task, trial, model=model, log_dir=args.log_dir, label=label,
                serve=args.serve, run_label=run_label,
            )  # fmt: skip
            print(f"{args.task} trial {trial}: {final}")
            print(score_line(find_log(args.log_dir, run_label=run_label), args.log_dir))

    run(
        episodes,
        server_down=stdio_server_down(shlex.join(serve_command(args.serve))),
        offline=f"--model {SCRIPTED}",
        install='pip install "openai-agents>=0.20,<0.21" (or: pip install -e ".[agents-sdk]")',
        traceback=args.traceback,
    )


if __name__ == "__main__":
    main()
