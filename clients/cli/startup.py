"""What the `taurec` commands do before reading their options.

- What both programs do (taurec.evaluator.cli.command_line.prepare): `.env` in the working
  folder read without overriding set variables, and Python's own traceback when stderr
  is not a terminal.
- Then, when stderr is not a terminal, log records (the server's, litellm's) go through
  a plain handler too: the MCP server installs rich's only when no handler is there yet,
  and rich squeezes its tracebacks into 80 columns minus its time, level and path
  columns.
- `missing_key`: the credentials check before a run.
- `port_problem`: the check that a server's port is free before it starts.
"""

from __future__ import annotations

import logging
import sys

import typer

from taurec.evaluator.cli.command_line import ENV_FILE, load_env_file
from taurec.evaluator.cli.command_line import prepare as shared_prepare

__all__ = ["ENV_FILE", "load_env_file", "missing_key", "port_problem", "prepare"]


def prepare(app: typer.Typer) -> None:
    shared_prepare(app)
    if not sys.stderr.isatty() and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.getLogger().addHandler(handler)
        logging.getLogger().setLevel(logging.WARNING)  # the server's default; serve sets its own


def missing_key(models: dict[str, str | None]) -> str | None:
    """One line naming the variable litellm lacks for a model a command was given
    (`{"--model": "openai/gpt-4o", ...}`, None for flags not in use); None when every
    model has what it needs. Imports litellm only when a model is named."""
    named = {flag: model for flag, model in models.items() if model}
    if not named:
        return None
    from taurec.catalog.llm_runtime import missing_credentials

    for flag, model in named.items():
        missing = missing_credentials(model)
        if missing:
            mock = "; --agent llm --model mock runs without a key" if flag == "--model" else ""
            return (
                f"{flag} {model}: {', '.join(missing)} not set (litellm needs it for this "
                f"model; export it, or put it in {ENV_FILE} in this folder{mock})"
            )
    return None


def port_problem(host: str, port: int) -> str | None:
    """One line saying that `host:port` cannot be listened on, and what to do; None if
    it can. Bound the way uvicorn binds (SO_REUSEADDR), then released at once."""
    import socket

    why = None
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        why = str(exc.strerror or exc)
    else:
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                why = str(exc.strerror or exc)
    if why is None:
        return None
    return (
        f"--port {port}: cannot listen on {host}:{port} ({why}); another server may be "
        "using it: stop it or choose another --port"
    )
