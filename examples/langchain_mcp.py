"""A LangChain tool-calling loop playing one taurec episode through langchain-mcp-adapters.

`MultiServerMCPClient` opens one session to the server and `load_mcp_tools` turns its
tools into LangChain tools; an interceptor fills the episode id into every call, so the
model never sees one. The harness starts the episode, gives the model the user's opening,
runs each tool call the model makes, sends its plain-text replies to the user with
send_message (the user's answer comes back as the next human message), and stops when
the episode ends. The system prompt is the server's `contestant` prompt. Every model
call (the messages sent, the reply, its tokens and time) goes to the server with the next
tool call, in MCP `_meta` (`ModelCalls` below, the few lines of taurec's
`ModelCallRecorder` this environment cannot import), logged as a `model_call` event; the
start names the model in the log header.

It runs in an environment of its own: langchain-mcp-adapters needs `mcp<2`, and taurec
`mcp>=2.3` (the protocol is the same), so the example starts `taurec serve` from taurec's
environment over stdio, or plays against a running HTTP server:

    python3 -m venv .venv-langchain
    .venv-langchain/bin/pip install langchain-mcp-adapters langchain-core
    .venv-langchain/bin/python examples/langchain_mcp.py --model scripted \\
        --taurec-python .venv/bin/python --log-dir logs/langchain
    # or: taurec serve --transport http --log-dir logs/http &
    .venv-langchain/bin/python examples/langchain_mcp.py --model scripted \\
        --url http://127.0.0.1:8000/mcp --log-dir logs/http

Without --taurec-python the server is started with the Python next to the `taurec`
command on PATH. `--model scripted` (offline, no key) is a small scripted chat model: ask
the user one question, search the catalog for the user's words, recommend the first hit;
it tests the wiring, not a model. A real model is `provider:model` for LangChain's
`init_chat_model` (`pip install langchain langchain-openai`; `--model openai:gpt-4o-mini`
with OPENAI_API_KEY set). It ends with the episode's score (by taurec's `evaluator`), or
with one line saying what stopped it; `--traceback` shows where instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: Tools the harness uses (start_episode among them); the model is not shown them.
HARNESS_TOOLS = {"start_episode", "list_tasks", "server_info", "abort_episode"}
SCRIPTED = "scripted"
QUESTION = "Happy to help! Anything else I should know: a mood, a length, a service?"
HARNESS_NOTE = """
## How this harness runs the episode

- The episode has already started (skip start_episode): the user's opening message is
  the first human message. The episode id is filled in for you; no tool takes it.
- To talk to the user, reply with plain text (it is sent with send_message and the
  user's answer comes back as the next human message), or call send_message yourself.
- The episode ends when you call recommend (a catalog item_id, or null to abstain).
"""
PACKAGES = "langchain-mcp-adapters langchain-core"
#: Where a model provider's exceptions come from; a failure there is the model's.
PROVIDER_MODULES = {"openai", "anthropic", "google", "groq", "mistralai", "cohere"}


class Stopped(Exception):
    """The example cannot go on; the message is its last line, after 'error: '."""


class ModelCalls:
    """One episode's model calls, sent with the next tool call (request `_meta`): the
    first `meta()` also names the agent and its model for the log header."""

    def __init__(self, model: str) -> None:
        self.model, self.pending, self.named = model, [], False

    def record(self, messages: list[Any], reply: Any, started: float) -> None:
        from langchain_core.messages import convert_to_openai_messages

        usage = getattr(reply, "usage_metadata", None) or {}
        record = {
            "model": self.model,
            "input": convert_to_openai_messages(messages),
            "output": convert_to_openai_messages([reply])[0],
            "latency_ms": (time.perf_counter() - started) * 1000,
        }
        if usage:
            record["usage"] = {
                "prompt_tokens": usage.get("input_tokens", 0),
                "completion_tokens": usage.get("output_tokens", 0),
            }
        self.pending.append(record)

    def meta(self) -> dict[str, Any] | None:
        out: dict[str, Any] = {}
        if not self.named:
            self.named = True
            out["taurec/agent"] = {"kind": "langchain", "model": self.model}
        if self.pending:
            out["taurec/model_calls"], self.pending = self.pending, []
        return out or None


def taurec_python(given: str | None) -> Path:
    """The Python of taurec's environment: `given`, or the one next to `taurec` on PATH."""
    expected = "the python of the environment where taurec is installed (e.g. .venv/bin/python)"
    if given:
        if not Path(given).is_file():
            raise Stopped(f"--taurec-python {given}: no such file; expected {expected}")
        return Path(given)
    found = shutil.which("taurec")
    python = Path(found).resolve().parent / "python" if found else None
    if python is None or not python.is_file():
        raise Stopped(
            f"taurec not found on PATH: pass --taurec-python with {expected}, or --url of a "
            "running `taurec serve --transport http`"
        )
    return python


def scripted_move(messages: list[Any]) -> Any:
    """The offline script's next message: a question to the user, a search with the
    user's words, then recommend the first hit."""
    from langchain_core.messages import AIMessage

    said = [str(m.content) for m in messages if m.type == "human"]
    last = messages[-1]
    if len(said) == 1 and last.type == "human":
        return AIMessage(content=QUESTION)
    if last.type == "tool" and last.name == "search_catalog":
        hits = ((last.artifact or {}).get("structured_content") or {}).get("hits") or [{}]
        arguments = {"item_id": hits[0].get("id"), "message": "This one fits your ask."}
        return AIMessage(content="", tool_calls=[_call("recommend", arguments, len(messages))])
    if last.type == "human":
        arguments = {"query": " ".join(said), "limit": 5}
        return AIMessage(content="", tool_calls=[_call("search_catalog", arguments, len(messages))])
    return AIMessage(content="Done (scripted model).")


def _call(name: str, args: dict[str, Any], n: int) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"scripted-{n}", "type": "tool_call"}


def chat_model(name: str) -> Any:
    """The chat model `name` names: the scripted one, or `init_chat_model(name)`."""
    if name == SCRIPTED:
        from langchain_core.language_models import BaseChatModel
        from langchain_core.outputs import ChatGeneration, ChatResult

        class ScriptedChatModel(BaseChatModel):
            model_name: str = SCRIPTED  # as the log header names it

            @property
            def _llm_type(self) -> str:
                return "taurec-scripted"

            def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
                return self  # the script knows the tools by name

            def _generate(self, messages: Any, *args: Any, **kwargs: Any) -> ChatResult:
                return ChatResult(generations=[ChatGeneration(message=scripted_move(messages))])

        return ScriptedChatModel()
    offline = f"to run offline without a key: --model {SCRIPTED}"
    if name.startswith("openai:") and not os.environ.get("OPENAI_API_KEY"):
        raise Stopped(f"--model {name}: OPENAI_API_KEY not set (export it); {offline}")
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise Stopped(
            f"--model {name} needs LangChain's init_chat_model: pip install langchain and the "
            f"provider's package (e.g. langchain-openai); {offline}"
        ) from None
    try:
        return init_chat_model(name, temperature=0)
    except (ImportError, ValueError) as exc:  # a provider package or key it lacks
        raise Stopped(f"--model {name}: {str(exc).splitlines()[0]}; {offline}") from None


def _without_episode_id(schema: dict[str, Any]) -> dict[str, Any]:
    properties = {k: v for k, v in schema.get("properties", {}).items() if k != "episode_id"}
    required = [name for name in schema.get("required", []) if name != "episode_id"]
    return {**schema, "properties": properties, "required": required}


async def play(
    connection: dict[str, Any],
    task_id: str,
    trial: int,
    *,
    model: Any,
    label: str,
    max_steps: int = 40,
) -> tuple[str, str | None]:
    """One episode on the server `connection` reaches; its id and how it ended (None when
    the model stopped first: it is then aborted as agent_error). A model call that fails
    aborts the episode as infra_error and raises."""
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.prompts import load_mcp_prompt
    from langchain_mcp_adapters.tools import load_mcp_tools

    episode: dict[str, Any] = {"id": None, "ended": None}
    calls = ModelCalls(getattr(model, "model_name", None) or type(model).__name__)

    async def fill_in(request: Any, handler: Any) -> Any:
        """The episode id, and the model calls queued (the adapter's request has no _meta,
        so the call goes to the session here)."""
        arguments = {**request.args, "episode_id": episode["id"]}
        return await session.call_tool(request.name, arguments, meta=calls.meta())

    async def harness_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A call of the harness's own; Stopped with the server's words when it fails."""
        if episode["id"] is not None:
            arguments = {"episode_id": episode["id"], **arguments}
        result = await session.call_tool(name, arguments, meta=calls.meta())
        if result.isError:
            text = " ".join(getattr(block, "text", "") for block in result.content)
            raise Stopped(text.removeprefix(f"Error executing tool {name}: "))
        return dict(result.structuredContent or {})

    client = MultiServerMCPClient({"taurec": connection})  # type: ignore[dict-item]
    async with client.session("taurec") as session:
        try:
            started = await harness_call(
                "start_episode", {"task_id": task_id, "trial": trial, "agent_label": label}
            )
        except Stopped as exc:  # the server refused: its own words say why
            raise Stopped(f"the server would not start the episode: {exc}") from None
        episode["id"] = started["episode_id"]
        prompt = await load_mcp_prompt(session, "contestant")
        tools = {}
        for tool in await load_mcp_tools(session, tool_interceptors=[fill_in]):
            if tool.name not in HARNESS_TOOLS:
                tool.args_schema = _without_episode_id(tool.args_schema)  # type: ignore[arg-type]
                tools[tool.name] = tool
        llm = model.bind_tools(list(tools.values()))
        system = "\n".join(str(m.content) for m in prompt) + "\n" + HARNESS_NOTE
        messages: list[Any] = [SystemMessage(system), HumanMessage(started["opening"])]
        for _ in range(max_steps):
            started_at = time.perf_counter()
            try:
                reply = await llm.ainvoke(messages)
            except Exception as exc:  # the provider failed: the episode says so, then stop
                detail = f"model call failed: {type(exc).__name__}: {exc}"[:2000]
                with contextlib.suppress(Stopped):  # it may have ended meanwhile
                    await harness_call("abort_episode", {"reason": "infra_error", "detail": detail})
                raise
            calls.record(messages, reply, started_at)
            messages.append(reply)
            for call in reply.tool_calls:
                tool = tools.get(call["name"])
                if tool is None:
                    messages.append(_no_such_tool(call))
                    continue
                result = await tool.ainvoke(call)  # a ToolMessage, the result in .artifact
                messages.append(result)
                structured = (result.artifact or {}).get("structured_content") or {}
                if structured.get("episode_ended"):
                    return episode["id"], structured.get("end_reason")
            if reply.tool_calls:
                continue
            if not reply.text.strip():
                break  # the model has nothing more to say: it stopped
            turn = await harness_call("send_message", {"text": reply.text})
            if turn.get("episode_ended"):
                return episode["id"], turn.get("end_reason")
            messages.append(HumanMessage(turn["reply"]))
        await harness_call(
            "abort_episode", {"reason": "agent_error", "detail": "the model stopped"}
        )
        return episode["id"], None


def _no_such_tool(call: dict[str, Any]) -> Any:
    from langchain_core.messages import ToolMessage

    text = f"Error: no tool named {call['name']!r}"
    return ToolMessage(content=text, tool_call_id=call["id"], status="error")


def score_line(python: Path | None, log_dir: str, episode_id: str) -> str:
    """The episode's score, by taurec's `evaluator score --json` (in taurec's environment)."""
    logs = sorted(Path(log_dir).glob(f"*/*/trial*-{episode_id[:12]}.jsonl"))
    evaluator = python.parent / "evaluator" if python else shutil.which("evaluator")
    if not logs or evaluator is None or not Path(evaluator).is_file():
        return f"score it in taurec's environment: evaluator score {logs[0] if logs else log_dir}"
    command = [str(evaluator), "score", "--json", str(logs[0])]
    done = subprocess.run(command, capture_output=True, text=True)
    try:
        got = (json.loads(done.stdout).get("groups") or [{}])[0]
    except ValueError:  # no JSON: the evaluator said why on stderr
        return f"score: the evaluator could not score {logs[0]}: {done.stderr.strip()[:300]}"
    return (
        f"score: passed {got.get('passed')} of {got.get('n_episodes')} (constraint score "
        f"{got.get('constraint_score', 0):.2f}, policy score {got.get('policy_score', 0):.2f}); "
        f"log: {logs[0]}"
    )


def why_stopped(exc: BaseException, server_down: str) -> str:
    """One line for what stopped the example."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    lines = str(exc).strip().splitlines()
    said = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    if isinstance(exc, Stopped):
        return str(exc)
    if isinstance(exc, ModuleNotFoundError):
        return f"{said}; in this environment (not taurec's): pip install {PACKAGES}"
    if any(cls.__module__.split(".")[0] in PROVIDER_MODULES for cls in type(exc).__mro__):
        return (
            f"the model failed: {said}; check the model name, its key and the network, or "
            f"play offline with --model {SCRIPTED}"
        )
    if isinstance(exc, FileNotFoundError | PermissionError):
        return f"cannot start the taurec server: {said}"
    gone = ("connection closed", "connecterror", "all connection attempts failed")
    if isinstance(exc, ConnectionError) or any(w in f"{said}".lower() for w in gone):
        return server_down
    return f"{said} (run again with --traceback to see where)"


def server(args: argparse.Namespace, python: Path | None, label: str) -> tuple[dict[str, Any], str]:
    """The connection to the server, and the line for a server that stopped or is not there."""
    if python is None:
        down = (
            f"no taurec server answers at {args.url}; start one with: taurec serve --transport http"
        )
        return {"transport": "streamable_http", "url": args.url}, down
    serve = ["-m", "taurec.clients.cli.serve", "--log-dir", args.log_dir, "--label", label]
    down = (
        f"the taurec server stopped before the episode ended (`{python} {' '.join(serve)}`; "
        "its message, if any, is above)"
    )
    # the server gets this environment: its log key, and any key an LLM user needs
    stdio = {"transport": "stdio", "command": str(python), "args": serve, "env": dict(os.environ)}
    return stdio, down


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", default=SCRIPTED, help=f"{SCRIPTED} (offline), or provider:model"
    )
    parser.add_argument("--task", default="t001")
    parser.add_argument("--trial", type=int, default=0)
    parser.add_argument("--log-dir", default="logs", help="where the server writes its logs")
    parser.add_argument("--label", default=None, help="default: langchain:<model>")
    parser.add_argument("--taurec-python", help="the python of taurec's environment (stdio)")
    parser.add_argument("--url", help="a running server (taurec serve --transport http)")
    parser.add_argument("--traceback", action="store_true", help="show where an error arose")
    args = parser.parse_args(argv)
    label = args.label or f"langchain:{args.model}"
    server_down = ""
    try:
        model = chat_model(args.model)
        python = None if args.url else taurec_python(args.taurec_python)
        connection, server_down = server(args, python, label)
        episode = play(connection, args.task, args.trial, model=model, label=label)
        episode_id, ended = asyncio.run(episode)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # every error ends as one line
        if args.traceback:
            raise
        sys.exit(f"error: {why_stopped(exc, server_down)}")
    print(f"ended: {ended or 'agent_error (the model stopped)'}")
    print(score_line(python, args.log_dir, episode_id))


if __name__ == "__main__":
    main()
