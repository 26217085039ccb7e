"""`taurec serve`: the MCP server, over stdio (default) or Streamable HTTP.

Exit code 2 when the settings or the suite are bad, when the LLM user's model lacks its
API key, or when the HTTP port is already in use (one line on stderr, checked before the server starts), 0 after a graceful stop (stdin closed, SIGTERM, SIGINT). In stdio mode stdout carries protocol
messages only; everything else goes to stderr. Once ready it says so in one line on
stderr: the URL it listens on (HTTP), or, over stdio when stdin is a terminal, that it
waits for a client there (a stdio server started by hand would otherwise look hung).
HTTP binds loopback unless told otherwise, and refuses a non-loopback host without an
auth token unless --allow-remote is given.
Run it directly as `python -m taurec.clients.cli.serve`, or mounted as `taurec serve`.
"""

from __future__ import annotations

import logging
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from taurec.clients.cli.simulator_options import (
    AbusSchemaOpt,
    AbusSlotValues,
    AbusSlotValuesOpt,
    AgendaDialoguesOpt,
    NlgModelOpt,
    SimulatorModelOpt,
    SimulatorName,
    SimulatorOpt,
    simulator_files_problem,
)
from taurec.clients.cli.startup import missing_key, port_problem
from taurec.clients.cli.stream_options import (
    CustomerKnowsName,
    CustomerKnowsOpt,
    FeedbackName,
    FeedbackOpt,
    RulesName,
    RulesOpt,
    ShuffleOrderOpt,
    stream_protocol,
)
from taurec.clients.cli.suite_option import SuiteOpt
from taurec.server import defaults

# `taurec serve --help` loads this module: the server (the MCP SDK, the catalog, pydantic)
# is imported in the command's body.


class TransportName(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


class LogLevel(StrEnum):
    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"


def _fail(message: object) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def serve(
    transport: Annotated[
        TransportName, typer.Option("--transport", help="stdio, or http (Streamable HTTP).")
    ] = TransportName.STDIO,
    host: Annotated[str, typer.Option("--host", help="HTTP: the address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="HTTP: the port.")] = 8000,
    suite: SuiteOpt = "builtin",
    catalog: Annotated[
        str | None,
        typer.Option(
            "--catalog", help="A catalog file or .taurec-catalog folder replacing the suite's own."
        ),
    ] = None,
    simulator: SimulatorOpt = SimulatorName.RULE,
    simulator_model: SimulatorModelOpt = None,
    nlu_model: Annotated[
        str | None,
        typer.Option(
            "--nlu-model", help="Read agent messages' dialogue acts with this litellm model."
        ),
    ] = None,
    agenda_dialogues: AgendaDialoguesOpt = None,
    abus_schema: AbusSchemaOpt = None,
    abus_slot_values: AbusSlotValuesOpt = AbusSlotValues.HISTORY,
    nlg_model: NlgModelOpt = None,
    log_dir: Annotated[
        Path, typer.Option("--log-dir", help="Episode logs go under LOG_DIR/RUN_LABEL/.")
    ] = Path("logs"),
    label: Annotated[
        str,
        typer.Option("--label", help="Agent label in the logs, unless start_episode gives one."),
    ] = "agent",
    run_label: Annotated[
        str | None,
        typer.Option("--run-label", help="Run id and log subfolder (default: time-stamped)."),
    ] = None,
    task: Annotated[
        str | None,
        typer.Option("--task", help="Bound mode: serve this task's episode only."),
    ] = None,
    trial: Annotated[
        int, typer.Option("--trial", min=0, help="Bound mode: the trial to serve.")
    ] = 0,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Bound mode: the episode's seed.")
    ] = None,
    patience: Annotated[
        int | None,
        typer.Option("--patience", min=1, help="Fruitless turns before the rule user leaves."),
    ] = None,
    log_level: Annotated[
        LogLevel, typer.Option("--log-level", help="Server log level (stderr).")
    ] = LogLevel.WARNING,
    auth_token: Annotated[
        str | None,
        typer.Option(
            "--auth-token",
            envvar=defaults.AUTH_TOKEN_ENV,
            show_envvar=True,
            help="HTTP: require 'Authorization: Bearer TOKEN' on every request (16+ chars).",
        ),
    ] = None,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote", help="HTTP: serve a non-loopback --host without --auth-token."
        ),
    ] = False,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="HTTP: another name clients may use for this server in Host/Origin (repeatable).",
        ),
    ] = None,
    report_acceptance: Annotated[
        bool,
        typer.Option(
            "--report-acceptance",
            help="For a harness that commits for a text-only CRS: send_message results name "
            "the title the simulated user accepted.",
        ),
    ] = False,
    max_request_bytes: Annotated[
        int, typer.Option("--max-request-bytes", help="HTTP: largest request body, in bytes.")
    ] = defaults.MAX_REQUEST_BYTES,
    max_message_chars: Annotated[
        int,
        typer.Option("--max-message-chars", help="Longest text argument of a tool, in characters."),
    ] = defaults.MAX_MESSAGE_CHARS,
    max_tool_calls_per_episode: Annotated[
        int,
        typer.Option(
            "--max-tool-calls-per-episode",
            help="Tool calls an episode accepts; the next one ends it (agent_error).",
        ),
    ] = defaults.MAX_TOOL_CALLS_PER_EPISODE,
    max_open_per_client: Annotated[
        int,
        typer.Option(
            "--max-open-per-client",
            help="Episodes one client (plan, known token, else address) may have open at once.",
        ),
    ] = defaults.MAX_OPEN_PER_CLIENT,
    idle_timeout: Annotated[
        float,
        typer.Option(
            "--idle-timeout",
            help="Seconds without a call after which an open episode is ended (agent_error).",
        ),
    ] = defaults.IDLE_TIMEOUT_SECONDS,
    max_connections: Annotated[
        int,
        typer.Option("--max-connections", help="HTTP: concurrent connections; beyond: 503."),
    ] = defaults.MAX_CONNECTIONS,
    keep_alive: Annotated[
        int,
        typer.Option("--keep-alive", help="HTTP: seconds an idle keep-alive connection stays."),
    ] = defaults.KEEP_ALIVE_SECONDS,
    max_header_bytes: Annotated[
        int,
        typer.Option("--max-header-bytes", help="HTTP: largest request line and headers."),
    ] = defaults.MAX_HEADER_BYTES,
    max_sessions: Annotated[
        int,
        typer.Option(
            "--max-sessions",
            help="HTTP: stateful MCP sessions (initialize handshakes) held at once; beyond: 503.",
        ),
    ] = defaults.MAX_SESSIONS,
    max_sessions_per_client: Annotated[
        int,
        typer.Option(
            "--max-sessions-per-client",
            help="HTTP: stateful sessions one client (its token, else its address) may hold; "
            "beyond: 429.",
        ),
    ] = defaults.MAX_SESSIONS_PER_CLIENT,
    session_idle_timeout: Annotated[
        float,
        typer.Option(
            "--session-idle-timeout",
            help="HTTP: seconds without a request after which a stateful session is closed.",
        ),
    ] = defaults.SESSION_IDLE_SECONDS,
    requests_per_second: Annotated[
        float,
        typer.Option(
            "--requests-per-second",
            help="HTTP: requests one client (its token, else its address) may send a second, "
            "on average; beyond (and its burst): 429.",
        ),
    ] = defaults.REQUESTS_PER_SECOND,
    request_burst: Annotated[
        int,
        typer.Option(
            "--request-burst", help="HTTP: requests one client may send at once, above its rate."
        ),
    ] = defaults.REQUEST_BURST,
    plan: Annotated[
        list[Path] | None,
        typer.Option(
            "--plan",
            help="Sealed mode: a plan file from `taurec plan new` (repeat: one per contestant). "
            "Its token decides the label; each planned episode can be played once.",
        ),
    ] = None,
    feedback: FeedbackOpt = FeedbackName.TASK,
    rules: RulesOpt = RulesName.BIEL,
    shuffle_order: ShuffleOrderOpt = False,
    customer_knows: CustomerKnowsOpt = CustomerKnowsName.TASTES,
) -> None:
    """Serve the benchmark to MCP agents. Logs one JSONL file per episode."""
    from pydantic import ValidationError

    from taurec.catalog.errors import DataError
    from taurec.server.hosts import is_loopback
    from taurec.server.http_rate import RateLimits
    from taurec.server.http_sessions import SessionLimits
    from taurec.server.settings import HttpSettings, ServerSettings
    from taurec.tasks.errors import from_validation_error
    from taurec.tasks.runs.plan import read_plan

    plans = tuple(plan or ())
    if plans and suite == "builtin":  # the suite the (first) plan was made for
        try:
            suite = read_plan(plans[0]).suite.spec
        except DataError as exc:
            _fail(exc)
    try:
        settings = ServerSettings(
            plans=plans,
            suite=suite,
            catalog=catalog,
            simulator=simulator.value,
            simulator_model=simulator_model,
            agenda_dialogues=agenda_dialogues,
            abus_schema=abus_schema,
            abus_slot_values=abus_slot_values.value,
            nlg_model=nlg_model,
            nlu_model=nlu_model,
            log_dir=log_dir,
            run_label=run_label,
            agent_label=label,
            task=task,
            trial=trial,
            seed=seed,
            patience=patience,
            log_level=log_level.value,
            max_message_chars=max_message_chars,
            report_acceptance=report_acceptance,
            max_tool_calls_per_episode=max_tool_calls_per_episode,
            max_open_per_client=max_open_per_client,
            idle_timeout_seconds=idle_timeout,
            stream_protocol=stream_protocol(feedback, rules, shuffle_order, customer_knows),
        )
        http = None
        if transport is TransportName.HTTP:
            http = HttpSettings(
                host=host,
                port=port,
                auth_token=auth_token,
                # with plans every request needs a plan's token (or auth_token)
                allow_remote=allow_remote or bool(plans),
                allowed_hosts=tuple(allowed_host or ()),
                max_request_bytes=max_request_bytes,
                max_connections=max_connections,
                keep_alive_seconds=keep_alive,
                max_header_bytes=max_header_bytes,
                sessions=SessionLimits(
                    max_sessions=max_sessions,
                    max_per_client=max_sessions_per_client,
                    idle_seconds=session_idle_timeout,
                ),
                rate=RateLimits(per_second=requests_per_second, burst=request_burst),
            )
    except ValidationError as exc:  # the flag, where a field has one on this command
        _fail(simulator.model_problem(simulator_model) or from_validation_error(exc))
    if http is not None and http.auth_token is None and not plans and not is_loopback(http.host):
        typer.echo(
            f"warning: serving {http.url} without an auth token (--allow-remote): anyone who "
            "can reach it can play episodes and write logs",
            err=True,
        )
    if simulator.calls_an_llm and (why := missing_key({"--simulator-model": simulator_model})):
        _fail(why)
    if (problem := simulator_files_problem(settings)) is not None:
        _fail(problem)
    if http is not None and (why := port_problem(http.host, http.port)) is not None:
        _fail(why)
    # the server (mcp) is imported after the checks above: a missing key is told at once
    from taurec.server.app import run_server

    logging.getLogger().setLevel(log_level.value)  # also where a plain handler is in place
    say = transport is TransportName.HTTP or sys.stdin.isatty()  # stdout: protocol only
    try:
        run_server(settings, transport.value, http, announce=_say if say else None)
    except DataError as exc:
        _fail(exc)
    except KeyboardInterrupt:  # pragma: no cover - a second Ctrl-C while stopping
        raise typer.Exit(0) from None


def _say(line: str) -> None:
    typer.echo(line, err=True)


def main() -> None:
    typer.run(serve)


if __name__ == "__main__":
    main()
