"""What the framework examples in examples/ share: the line each one ends with.

An example plays an episode through an agent framework over MCP and ends with the
episode's score, read from the episode's own log as `evaluator score` reads it, or with
one line saying what stopped it and what to do (a package that is not installed, a
server that would not start or answer, a model provider that failed), never a traceback
unless `--traceback` asks for one.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import NoReturn

import anyio

from taurec.clients.agents.outages import said

#: Where a model provider's own exceptions come from (the examples' frameworks wrap
#: theirs in these, or raise them as they are).
PROVIDER_MODULES = {"openai", "litellm", "anthropic", "google", "groq", "mistralai", "cohere"}
#: Framework exceptions that mean the model (not the server) failed the run.
MODEL_ERRORS = {"ModelHTTPError", "ModelAPIError", "UnexpectedModelBehavior", "ModelBehaviorError"}
#: What a client raises when the server's process or connection is gone.
SERVER_GONE = {
    "ClosedResourceError",
    "BrokenResourceError",
    "EndOfStream",
    "ConnectError",
    "ConnectTimeout",
    "RemoteProtocolError",
}


class Stopped(Exception):
    """The example cannot go on; the message is the line it ends with, after 'error: '."""


def first_error(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _is_provider(exc: BaseException) -> bool:
    return any(
        cls.__module__.split(".")[0] in PROVIDER_MODULES or cls.__name__ in MODEL_ERRORS
        for cls in type(exc).__mro__
    )


def _is_server_gone(exc: BaseException) -> bool:
    said = str(exc).lower()
    if "connection closed" in said or "failed to connect" in said:  # MCP clients' own words
        return True
    return isinstance(exc, ConnectionError) or type(exc).__name__ in SERVER_GONE


def why_stopped(exc: BaseException, *, server_down: str, offline: str, install: str) -> str:
    """One line for what stopped an example, naming what to do. `server_down` is the line
    for a server that stopped or cannot be reached, `offline` the flag that plays without
    a model, `install` how to install the example's framework."""
    error = first_error(exc)
    if isinstance(error, Stopped):
        return str(error)
    if isinstance(error, ModuleNotFoundError):
        return f"{said(error)}; the example needs its framework: {install}"
    if _is_provider(error):
        return (
            f"the model failed: {said(error)}; check the model name, its key and the "
            f"network, or play offline with {offline}"
        )
    if isinstance(error, FileNotFoundError | PermissionError):
        return f"cannot start the taurec server: {said(error)}"
    if _is_server_gone(error):
        return server_down
    return f"{said(error)} (run again with --traceback to see where)"


def run(
    main: Callable[[], Awaitable[None]],
    *,
    server_down: str,
    offline: str,
    install: str,
    traceback: bool = False,
) -> None:
    """Run an example's `main`; on an error, end with why_stopped's line (exit 1), or the
    traceback when asked for. Ctrl-C ends quietly (exit 130)."""
    try:
        anyio.run(main)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # every error ends as one line (the point of this module)
        if traceback:
            raise
        fail(why_stopped(exc, server_down=server_down, offline=offline, install=install))


def fail(line: str) -> NoReturn:
    sys.exit(f"error: {line}")


def serve_command(serve: str | None) -> list[str]:
    """The stdio server's command line: `serve` split as a shell would, or `taurec serve`
    run by this Python."""
    return shlex.split(serve) if serve else [sys.executable, "-m", "taurec.clients.cli.serve"]


def stdio_server_down(command: str) -> str:
    """The line for a stdio server that stopped: its own message is printed above it."""
    return (
        f"the taurec server stopped before the episode ended (`{command}`; its message, if "
        "any, is above)"
    )


def find_log(log_dir: str | Path, *, episode_id: str = "", run_label: str = "*") -> Path | None:
    """The log of one episode under `log_dir`: by its id, or the one log of a run (a
    bound server's run label)."""
    pattern = f"{run_label}/*/trial*-{episode_id[:12]}*.jsonl"
    return next(iter(sorted(Path(log_dir).glob(pattern))), None)


def score_line(log: Path | None, log_dir: str | Path) -> str:
    """The episode's score as one line, or where to find the logs to score."""
    if log is None:
        return (
            f"score: no log of this episode under {log_dir}; score the server's logs with: "
            "evaluator score LOG_DIR"
        )
    from taurec.evaluator.logs import Resolver, score_file

    score = score_file(log, Resolver())
    verdict = "passed" if score.passed else "not passed"
    line = f"score: reward {score.reward:.2f}, {verdict} (ended: {score.end_reason}); log: {log}"
    return f"{line}; {score.problems[0].splitlines()[0]}" if score.problems else line


def new_run_label() -> str:
    """A fresh run label (the log sub-folder a server writes its episodes to)."""
    from taurec.server.run_facts import default_run_label

    return default_run_label()
