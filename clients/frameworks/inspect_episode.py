"""One taurec episode behind an Inspect AI MCP session: the harness starts it, the model
gets its tools, and its taurec log says when it has ended (see inspect_task.py).

Each sample gets its own `taurec serve` subprocess over stdio (the MCP SDK's client, one
connection per sample), started with the task's ServerSettings, so its log goes where
the task says. The model never sees `episode_id`: each offered tool is an Inspect tool
made from the server's own (its description and input schema) with `episode_id` removed
from the schema and filled in on every call, so the model can neither forget it nor
address another episode. The tools the harness owns (start, list, info, abort) are not
offered. Every model call the solver records (`record_model_call`: the messages sent,
the reply, tokens and time) goes to the server with the next call, in its request
`_meta`, and is logged as a `model_call` event; the start names the model in the log
header. (Inspect's own MCP client sends no `_meta`, hence a session of the harness's own.)

A reply without tool calls means what it means to a TaurecEnv (clients/envs/actions.py):
a ranking's `<answer>\\boxed{[...]}</answer>` is submitted (an unreadable one as an empty
ranking, scored -1), dialogue text is said to the user (send_message, whose reply comes
back as the next user message), tool calls written as text are run, and anything else is
answered with a one-line error.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import anyio
import orjson
from inspect_ai.tool import Tool, ToolDef, ToolError, ToolParams
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from taurec.clients.agents.model_calls import ModelCallRecorder
from taurec.clients.agents.tool_schema import HARNESS_TOOLS, HIDDEN_ARGUMENTS
from taurec.clients.envs.actions import Calls, Say, Unreadable, action_of
from taurec.clients.envs.env import opening_of
from taurec.clients.envs.host import log_has_ended
from taurec.clients.runner.connection import serve_arguments, serve_environment
from taurec.server.settings import ServerSettings
from taurec.server.trajectory_writer import log_path

log = logging.getLogger(__name__)

#: Tools the model is never offered (a stream is started as an episode, by the harness).
NOT_OFFERED: Final = HARNESS_TOOLS | {"start_stream"}
#: Prefix of what the harness (not the user) answers a reply with.
ERROR_PREFIX: Final = "Error: "


@asynccontextmanager
async def served(settings: ServerSettings) -> AsyncIterator[ClientSession]:
    """An initialized MCP session to a `taurec serve` subprocess serving `settings`."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "taurec.clients.cli.serve", *serve_arguments(settings)],
        env=serve_environment(),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _text(result: types.CallToolResult) -> str:
    """A tool result's content, as text."""
    return "\n".join(str(getattr(part, "text", part)) for part in result.content)


def _meta(calls: ModelCallRecorder) -> Any:
    """The request `_meta` (RequestParamsMeta takes extra keys) with the calls queued."""
    return calls.meta()


def _result(result: Any) -> types.CallToolResult:
    """A tool call's result (taurec's server asks for no input, so it is never another)."""
    if not isinstance(result, types.CallToolResult):
        raise RuntimeError(f"the taurec server answered a tool call with {type(result).__name__}")
    return result


def _parameters(tool: types.Tool) -> ToolParams:
    """The tool's input schema as Inspect's parameters, without the hidden arguments (a
    parameter without a description is described by its name, as Inspect's MCP does)."""
    parameters = ToolParams.model_validate(tool.input_schema)
    for hidden in HIDDEN_ARGUMENTS:
        parameters.properties.pop(hidden, None)
    parameters.required = [p for p in parameters.required if p not in HIDDEN_ARGUMENTS]
    for name, param in parameters.properties.items():
        param.description = param.description or name
    return parameters


def _data(text: str) -> dict[str, Any]:
    """A tool result's structured form (the server writes it as JSON text), or {}."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


class McpEpisode:
    """A started episode: `offered()` are the model's tools, `reply(text)` answers a
    reply without tool calls, `ended` reads the log, `abort(detail)` ends it."""

    def __init__(
        self,
        session: ClientSession,
        tools: dict[str, types.Tool],
        *,
        kind: str,
        task: Any,
        started: dict[str, Any],
        log: Path,
        calls: ModelCallRecorder,
    ) -> None:
        self.session = session
        self.calls = calls
        self.tools = tools
        self.kind = kind
        self.task = task
        self.started = started
        self.episode_id = str(started["episode_id"])
        self.trial = int(started.get("trial", 0))
        self.log = log

    @classmethod
    async def start(
        cls,
        session: ClientSession,
        settings: ServerSettings,
        *,
        kind: str,
        task: Any,
        trial: int,
        label: str,
        model: str | None = None,
    ) -> McpEpisode:
        """Start (task, trial) on the server behind `session` (start_episode through MCP)
        under the agent label `label`, naming `model` in the log header. Raises
        RuntimeError with the server's words when it refuses."""
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        if "start_episode" not in tools:
            raise RuntimeError("the taurec server offers no start_episode tool")
        calls = ModelCallRecorder(kind="inspect", model=model or "unknown")
        arguments = {"task_id": task.id, "trial": trial, "agent_label": label}
        result = _result(await session.call_tool("start_episode", arguments, meta=_meta(calls)))
        text = _text(result)
        if result.is_error:
            raise RuntimeError(f"start_episode {task.id} trial {trial}: {text}")
        started = _data(text)
        if "episode_id" not in started:
            raise RuntimeError(f"start_episode answered without an episode_id: {text[:200]}")
        assert settings.run_label is not None
        log = log_path(settings.log_dir, settings.run_label, task.id, trial, started["episode_id"])
        return cls(session, tools, kind=kind, task=task, started=started, log=log, calls=calls)

    # --- what the model sees --------------------------------------------------------------

    @property
    def opening(self) -> str:
        """The first user message: the opening, and a stream's first episode."""
        return opening_of(self.started)

    @property
    def max_turns(self) -> int:
        return int(self.started.get("max_turns", 0) or 0)

    def offered(self) -> list[Tool]:
        """The episode's tools for the model, in server order, without `episode_id`."""
        return [self._wrap(name) for name in self.tools if name not in NOT_OFFERED]

    def _wrap(self, name: str) -> Tool:
        server_tool = self.tools[name]

        async def execute(**arguments: Any) -> Any:
            result = await self._call_tool(name, arguments)
            if result.is_error:
                raise ToolError(_text(result))  # the model reads the server's words
            return _text(result)

        # max_output 0: the server bounds its own results; every harness shows them whole
        return ToolDef(
            execute,
            name=name,
            description=server_tool.description or name,
            parameters=_parameters(server_tool),
            max_output=0,
        ).as_tool()

    def record_model_call(self, **fields: Any) -> None:
        """Queue one model call (ModelCallRecorder.record's fields: messages, output,
        usage, latency_ms, ...) to go with the next call to the server."""
        self.calls.record(**fields)

    # --- the harness's own calls ----------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Call an episode tool (through MCP, `episode_id` filled in); its text, prefixed
        "Error: " when the server refused the call."""
        if name not in self.tools or name in NOT_OFFERED:
            offered = ", ".join(n for n in self.tools if n not in NOT_OFFERED)
            return f"{ERROR_PREFIX}there is no tool {name!r} here; use one of: {offered}"
        return await self._invoke(name, arguments)

    async def _invoke(self, name: str, arguments: dict[str, Any]) -> str:
        result = await self._call_tool(name, arguments)
        return f"{ERROR_PREFIX}{_text(result)}" if result.is_error else _text(result)

    async def _call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """`name` on the episode (its id filled in), with the model calls queued."""
        given = {k: v for k, v in arguments.items() if k not in HIDDEN_ARGUMENTS}
        given["episode_id"] = self.episode_id
        return _result(await self.session.call_tool(name, given, meta=_meta(self.calls)))

    async def reply(self, text: str) -> str:
        """Act on a model reply that made no native tool call (see the module doc); what
        the model is told next (the user's answer, tool results, or an error)."""
        parsed = action_of(text, self.kind, self.task)
        if isinstance(parsed, Unreadable):
            return f"{ERROR_PREFIX}{parsed.reason}"
        if isinstance(parsed, Say):
            answer = await self.call("send_message", {"text": parsed.text})
            reply = _data(answer).get("reply")
            return reply if isinstance(reply, str) else answer
        assert isinstance(parsed, Calls)
        return "\n\n".join([await self.call(name, args) for name, args in parsed.calls])

    @property
    def ended(self) -> bool:
        return log_has_ended(self.log)

    async def abort(self, detail: str, reason: str = "agent_error") -> None:
        """End the episode as `reason` with `detail` (shielded: it runs on cancel too).
        When the server cannot be reached any more, its own shutdown ends the episode
        (infra_error), and the error that stopped the sample is the one reported."""
        with anyio.CancelScope(shield=True):
            try:
                arguments = {"reason": reason, "detail": detail[:2000]}
                await self._invoke("abort_episode", arguments)
            except Exception as exc:
                log.warning("episode %s: abort_episode failed: %s", self.episode_id[:8], exc)

    def links(self) -> dict[str, Any]:
        """What the Inspect sample records of the episode: its log, id and trial."""
        return {
            "taurec_log": str(self.log),
            "taurec_episode_id": self.episode_id,
            "taurec_trial": self.trial,
        }
