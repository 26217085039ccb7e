"""`taurec play`: be the agent yourself, in the terminal, against the simulated user.

The episode runs through the in-process MCP server and is logged like any other (agent
label "human"); at the end its score is explained. Type /help during play for commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from taurec.clients.cli.suite_option import SuiteOpt

if TYPE_CHECKING:
    from taurec.tasks.suite import Suite

# `taurec play --help` loads this module: the runner, the server and the catalog are
# imported in the command's body.

err = Console(stderr=True, highlight=False, soft_wrap=True)


def _fail(message: object) -> NoReturn:
    err.print(f"[red]error:[/red] {escape(str(message))}")
    raise typer.Exit(2)


async def read_line(prompt: str) -> str | None:
    """One line from stdin (None at end of input); Ctrl-C cancels the wait."""
    import anyio.to_thread

    def ask() -> str | None:
        try:
            return input(prompt)
        except EOFError:
            return None

    return await anyio.to_thread.run_sync(ask, abandon_on_cancel=True)


def _choose(suite: Suite, console: Console) -> str:
    console.print(f"tasks of suite {suite.id}:")
    console.print(
        "  " + "  ".join(f"{t.id} ({t.stratum[0].value}/{t.stratum[1].value})" for t in suite.tasks)
    )
    first = suite.tasks[0].id
    try:
        answer = input(f"task id [{first}]: ").strip()
    except EOFError:
        answer = ""
    return answer or first


def play(
    task: Annotated[
        str | None, typer.Option("--task", help="The task to play (default: ask).")
    ] = None,
    suite: SuiteOpt = "builtin",
    out: Annotated[
        Path, typer.Option("--log-dir", "--out", help="Log folder; --out is the same.")
    ] = Path("logs"),
    trial: Annotated[int, typer.Option("--trial", min=0, help="Trial index (seeds the user).")] = 0,
    label: Annotated[str, typer.Option("--label", help="Your label in the logs.")] = "human",
) -> None:
    """Play one episode as the agent: talk to the simulated user, search, recommend."""
    import anyio

    from taurec.catalog.errors import DataError
    from taurec.clients.agents.recommendation.human import HumanAgent
    from taurec.clients.runner.connection import Connection
    from taurec.clients.runner.plan import EpisodeSpec
    from taurec.clients.runner.runner import Runner
    from taurec.evaluator.render import print_explanation
    from taurec.server.run_facts import default_run_label
    from taurec.server.settings import ServerSettings
    from taurec.tasks.suite import load_suite

    console = Console(highlight=False, soft_wrap=True)
    try:
        loaded = load_suite(suite)
    except DataError as exc:
        _fail(exc)
    task_id = task or _choose(loaded, console)
    if loaded.get(task_id) is None:
        _fail(f"--task: {task_id!r} is not in suite {loaded.id!r} (e.g. {loaded.tasks[0].id})")
    run_label = default_run_label()
    settings = ServerSettings(suite=suite, log_dir=out, run_label=run_label, agent_label=label)
    agent = HumanAgent(read_line, console, label)
    runner = Runner(
        agent,
        Connection("inproc", settings),
        out,
        run_label,
        concurrency=1,
        episode_timeout=None,
        handle_signals=False,
    )
    try:
        report = anyio.run(runner.run, [EpisodeSpec(task_id, trial)])
    except KeyboardInterrupt:
        err.print("\ninterrupted: the episode log stays without an end (scored as incomplete)")
        raise typer.Exit(130) from None
    if report.failure or not report.results:
        _fail(f"the episode could not run: {report.failure}")
    result = report.results[0]
    if result.error and result.end_reason == "agent_error":
        console.print(f"[yellow]you stopped without committing ({result.end_reason})[/yellow]")
    if result.score is not None:
        print_explanation(result.score, console)


def main() -> None:
    typer.run(play)


if __name__ == "__main__":
    main()
