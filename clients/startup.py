"""What the `taurec` commands do before reading their options.

- `.env` in the working folder is read into the environment (API keys for litellm, the
  server's token), never overriding a variable already set; python-dotenv is imported
  only when there is such a file, so start-up stays fast.
- Unexpected errors print Python's own traceback when stderr is not a terminal (a log
  file, a pipe, CI), so it is full-width and greppable rather than a panel squeezed to
  whatever width rich guesses; on a terminal, typer's panel. Log records (the server's,
  litellm's) then go through a plain handler too: the MCP server installs rich's only
  when no handler is there yet, and rich squeezes its tracebacks into 80 columns minus
  its time, level and path columns.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import typer

ENV_FILE = ".env"


def load_env_file(folder: Path | None = None) -> Path | None:
    """Load `<folder or cwd>/.env` without overriding set variables; the file, if read."""
    path = (folder or Path.cwd()) / ENV_FILE
    if not path.is_file():
        return None
    from dotenv import load_dotenv

    load_dotenv(path, override=False)
    return path


def prepare(app: typer.Typer) -> None:
    load_env_file()
    terminal = sys.stderr.isatty()
    app.pretty_exceptions_enable = terminal
    if not terminal and not logging.getLogger().handlers:
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
    from taurec.server.llm_runtime import missing_credentials

    for flag, model in named.items():
        missing = missing_credentials(model)
        if missing:
            mock = "; --agent llm --model mock runs without a key" if flag == "--model" else ""
            return (
                f"{flag} {model}: {', '.join(missing)} not set (litellm needs it for this "
                f"model; export it, or put it in {ENV_FILE} in this folder{mock})"
            )
    return None
