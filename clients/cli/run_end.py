"""How `taurec run` ends once its episodes are played: what it says on stderr after the
table (agent errors with the first traceback, logs it could not write, a run whose every
episode ended in an error) and the exit code it gives (run.py lists them). Imported in
the command's body: it loads the runner."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape

from taurec.clients.cli.run_options import named_cause, resume_command, saved
from taurec.clients.runner.agent_errors import (
    errored_summary,
    every_episode_errored,
    print_agent_errors,
)
from taurec.clients.runner.runner import RunReport
from taurec.clients.runner.session import all_infra_errors, infra_summary
from taurec.evaluator.text import plural

if TYPE_CHECKING:
    from taurec.clients.runner.log_failures import LogFailure
    from taurec.evaluator.sealed import RunCheck


def stop_if_failed_fast(
    report: RunReport, out: Path, options: dict[str, object], err: Console
) -> None:
    """--fail-fast stopped the run at an agent error: that error, how to go on; exit 1."""
    if not report.failed_fast:
        return
    print_agent_errors(report, err)
    err.print(
        "[red]error:[/red] --fail-fast stopped the run at the first agent error: "
        f"{saved(len(report.results))} in {out}, episodes in flight were cancelled and "
        "none was started after it. Once the agent is fixed, resume with:\n  "
        f"{escape(resume_command(options))}"
    )
    raise typer.Exit(1)


def finish(
    report: RunReport | None,
    check: RunCheck,
    unwritten: list[LogFailure],
    planned: int,
    out: Path,
    options: dict[str, object],
    both: bool,
    err: Console,
) -> None:
    """After the table of a run that played `planned` episodes (`report`; None when there
    was nothing to play): its agent errors, then exit 1 for logs it could not write, for a
    run whose every episode ended in an error, or for what the evaluator found wrong."""
    if report is not None:
        print_agent_errors(report, err)
    if unwritten:
        err.print(
            f"[red]error:[/red] {len(unwritten)} of {plural(planned, 'episode')} have no whole "
            f"log ({escape(named_cause(unwritten))}); they count as infrastructure errors. "
            f"Free space where the logs go, then resume with:\n  "
            f"{escape(resume_command(options))}"
        )
        raise typer.Exit(1)
    if report is not None and all_infra_errors(report):
        err.print(f"[red]error:[/red] {infra_summary(report)}")
        raise typer.Exit(1)
    if report is not None and every_episode_errored(report):
        err.print(f"[red]error:[/red] {errored_summary(report)}")
        raise typer.Exit(1)
    err.print(f"this run only; the whole folder: evaluator score {out}{' --rules both' * both}")
    if not check.clean:
        raise typer.Exit(1)
