"""Connecting to the benchmark's MCP server: in process, over stdio, or over HTTP.

- inproc: the server is built in this process and reached through the SDK's in-memory
  transport (`mcp.Client(server)`): the fastest, for the built-in reference agents.
- stdio: `taurec serve` runs as a subprocess, exactly as a desktop agent would launch it.
- http: a server someone already started (`taurec serve --transport http`), by URL,
  with its bearer token when it has one.

All episodes of a run share one client session; calls on it run concurrently.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Literal

from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from taurec.server.app import build_server
from taurec.server.recommendation.episodes import SimulatorFactory
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.signing import KEY_ENV, KEY_FILE_ENV

#: passed on to a `taurec serve` subprocess besides the SDK's short list of safe variables
#: (which leaves out everything else): where its log key is, so it signs with the run's key
SERVE_ENV: tuple[str, ...] = (KEY_ENV, KEY_FILE_ENV, "XDG_DATA_HOME")


def serve_environment() -> dict[str, str]:
    """The environment of a `taurec serve` subprocess."""
    env = get_default_environment()
    env.update({name: os.environ[name] for name in SERVE_ENV if name in os.environ})
    return env


Transport = Literal["inproc", "stdio", "http"]
TRANSPORTS: tuple[Transport, ...] = ("inproc", "stdio", "http")


@dataclass(frozen=True)
class Connection:
    """How to reach the server. `settings` configure a server the runner starts (inproc,
    stdio); an http server was configured by whoever started it."""

    transport: Transport = "inproc"
    settings: ServerSettings = field(default_factory=ServerSettings)
    url: str | None = None
    make_user: SimulatorFactory | None = None  # inproc only: replaces the simulated user
    auth_token: str | None = field(default=None, repr=False)  # http only: the bearer token

    def __post_init__(self) -> None:
        if self.transport == "http" and not self.url:
            raise ValueError("--transport http needs --url (e.g. http://127.0.0.1:8000/mcp)")
        if self.transport != "http" and self.url:
            raise ValueError("--url applies to --transport http only")
        if self.transport != "http" and self.auth_token:
            raise ValueError("--auth-token applies to --transport http only")

    @property
    def writes_logs_to_out(self) -> bool:
        """Whether the runner decides where logs go (it starts the server)."""
        return self.transport != "http"

    def describe(self) -> str:
        if self.transport == "http":
            return f"http {self.url}"
        if self.transport == "stdio":
            return "stdio (taurec serve subprocess)"
        return "in process"


def serve_arguments(settings: ServerSettings) -> list[str]:
    """`taurec serve` options reproducing `settings`."""
    args = ["--suite", settings.suite, "--log-dir", str(settings.log_dir)]
    args += ["--label", settings.agent_label, "--log-level", settings.log_level]
    if settings.catalog:
        args += ["--catalog", settings.catalog]
    if settings.run_label:
        args += ["--run-label", settings.run_label]
    for plan in settings.plans:
        args += ["--plan", str(plan)]
    if settings.patience is not None:
        args += ["--patience", str(settings.patience)]
    if settings.simulator != "rule":
        args += ["--simulator", settings.simulator]
    if settings.agenda_dialogues is not None:
        args += ["--agenda-dialogues", str(settings.agenda_dialogues)]
    if settings.abus_schema is not None:
        args += ["--abus-schema", str(settings.abus_schema)]
    if settings.abus_slot_values != "history":
        args += ["--abus-slot-values", settings.abus_slot_values]
    if settings.nlu_model is not None:
        args += ["--nlu-model", settings.nlu_model]
    if settings.nlg_model is not None:
        args += ["--nlg-model", settings.nlg_model]
    model = getattr(settings, "simulator_model", None)
    if model:
        args += ["--simulator-model", model]
    if settings.report_acceptance:
        args.append("--report-acceptance")
    defaults = ServerSettings()
    for name in ("max_message_chars", "max_tool_calls_per_episode"):
        if getattr(settings, name) != getattr(defaults, name):
            args += [f"--{name.replace('_', '-')}", str(getattr(settings, name))]
    protocol = settings.stream_protocol
    if protocol.feedback != defaults.stream_protocol.feedback:
        args += ["--feedback", protocol.feedback.value]
    if protocol.rules != defaults.stream_protocol.rules:
        args += ["--rules", protocol.rules.value]
    if protocol.shuffle_order:
        args.append("--shuffle-order")
    if protocol.customer_knows != defaults.stream_protocol.customer_knows:
        args += ["--customer-knows", protocol.customer_knows.value]
    return args


@asynccontextmanager
async def open_client(connection: Connection) -> AsyncIterator[Client]:
    """A connected MCP client for the run. Raises DataError (inproc) when the suite cannot
    be loaded, and the SDK's errors when the server cannot be reached."""
    if connection.transport == "inproc":
        server = build_server(connection.settings, make_user=connection.make_user)
        async with Client(server) as client:
            yield client
    elif connection.transport == "stdio":
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "taurec.clients.cli.serve", *serve_arguments(connection.settings)],
            env=serve_environment(),
        )
        async with Client(params) as client:
            yield client
    else:
        assert connection.url is not None
        token = connection.auth_token
        headers = {"Authorization": f"Bearer {token}"} if token else None
        async with (
            create_mcp_http_client(headers=headers) as http,
            Client(streamable_http_client(connection.url, http_client=http)) as client,
        ):
            yield client
