"""One taurec episode behind an Inspect AI MCP session: the harness starts it, the model
gets its tools, and its taurec log says when it has ended (see inspect_task.py).

Each sample gets its own `taurec serve` subprocess over stdio (Inspect's
`mcp_server_stdio`, one connection per sample), started with the task's ServerSettings,
so its log goes where the task says. Every call the model makes reaches that server
through Inspect's MCP client; the model never sees `episode_id`: each offered tool is
the server's own tool (its description and input schema) with `episode_id` removed from
the schema and filled in on every call, so the model can neither forget it nor address
another episode. The tools the harness owns (start, list, info, abort) are not offered.

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
from inspect_ai.tool import Tool, ToolDef, ToolError, mcp_server_stdio

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
async def served(settings: ServerSettings) -> AsyncIterator[Any]:
    """An entered Inspect MCP session to a `taurec serve` subprocess serving `settings`."""
    server = mcp_server_stdio(
        name="taurec",
        command=sys.executable,
        args=["-m", "taurec.clients.cli.serve", *serve_arguments(settings)],
        env=serve_environment(),
    )
    async with server as session:
        yield session


def _text(content: Any) -> str:
    """What an Inspect MCP tool returned (a list of content parts), as text."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    return "\n".join(str(getattr(part, "text", part)) for part in parts)


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
        tools: dict[str, Tool],
        *,
        kind: str,
        task: Any,
        started: dict[str, Any],
        log: Path,
    ) -> None:
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
        session: Any,
        settings: ServerSettings,
        *,
        kind: str,
        task: Any,
        trial: int,
        label: str,
    ) -> McpEpisode:
        """Start (task, trial) on the server behind `session` (start_episode through MCP)
        under the agent label `label`. Raises RuntimeError with the server's words when
        it refuses."""
        tools = {ToolDef(tool).name: tool for tool in await session.tools()}
        if "start_episode" not in tools:
            raise RuntimeError("the taurec server offers no start_episode tool")
        arguments = {"task_id": task.id, "trial": trial, "agent_label": label}
        try:
            text = _text(await tools["start_episode"](**arguments))
        except ToolError as exc:
            raise RuntimeError(f"start_episode {task.id} trial {trial}: {exc}") from None
        started = _data(text)
        if "episode_id" not in started:
            raise RuntimeError(f"start_episode answered without an episode_id: {text[:200]}")
        assert settings.run_label is not None
        log = log_path(settings.log_dir, settings.run_label, task.id, trial, started["episode_id"])
        return cls(tools, kind=kind, task=task, started=started, log=log)

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
        defined = ToolDef(server_tool)
        parameters = defined.parameters.model_copy(deep=True)
        for hidden in HIDDEN_ARGUMENTS:
            parameters.properties.pop(hidden, None)
        parameters.required = [p for p in parameters.required if p not in HIDDEN_ARGUMENTS]

        async def execute(**arguments: Any) -> Any:
            for hidden in HIDDEN_ARGUMENTS:
                arguments.pop(hidden, None)
            return await server_tool(episode_id=self.episode_id, **arguments)

        # max_output 0: the server bounds its own results; every harness shows them whole
        return ToolDef(
            execute,
            name=name,
            description=defined.description,
            parameters=parameters,
            max_output=0,
        ).as_tool()

    # --- the harness's own calls ----------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Call an episode tool (through MCP, `episode_id` filled in); its text, prefixed
        "Error: " when the server refused the call."""
        if name not in self.tools or name in NOT_OFFERED:
            offered = ", ".join(n for n in self.tools if n not in NOT_OFFERED)
            return f"{ERROR_PREFIX}there is no tool {name!r} here; use one of: {offered}"
        return await self._invoke(name, arguments)

    async def _invoke(self, name: str, arguments: dict[str, Any]) -> str:
        given = {k: v for k, v in arguments.items() if k not in HIDDEN_ARGUMENTS}
        try:
            return _text(await self.tools[name](episode_id=self.episode_id, **given))
        except ToolError as exc:
            return f"{ERROR_PREFIX}{exc}"

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
