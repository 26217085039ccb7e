"""What a run says about its agent errors: the episodes the runner ended as `agent_error`
(the agent raised, timed out or returned without committing). After the table, on stderr:
how many, and the first one's traceback as its log's end record keeps it (else the
runner's one-line detail). A run whose every episode ended in an error, agent's or
infrastructure's, measures nothing: `taurec run` fails (exit 1).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from rich.console import Console

from taurec.clients.runner.runner import EpisodeResult, RunReport
from taurec.evaluator.text import markup, plural
from taurec.tasks.trajectory.format import EndReason
from taurec.tasks.trajectory.secrets import scrub

#: Bytes read from a log's end to find its end record (a traceback is at most 8 KB).
END_RECORD_BYTES = 64 * 1024


def agent_errors(report: RunReport) -> list[EpisodeResult]:
    """The episodes of `report` that ended as agent_error, in the order they finished."""
    return [r for r in report.results if r.end_reason == EndReason.AGENT_ERROR]


def every_episode_errored(report: RunReport) -> bool:
    """Every episode the run played ended in an agent or infrastructure error."""
    return bool(report.results) and all(
        r.infra_error or r.end_reason == EndReason.AGENT_ERROR for r in report.results
    )


def logged_traceback(log: Path | None) -> str | None:
    """The traceback the end record of the log at `log` keeps; None without one."""
    return _end_field(log, "traceback")


def logged_detail(log: Path | None) -> str | None:
    """Why the server ended the episode, as its end record says (e.g. "tool-call limit:
    ..."); None without one."""
    return _end_field(log, "detail")


def _end_field(log: Path | None, name: str) -> str | None:
    if log is None:
        return None
    try:
        with open(log, "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - END_RECORD_BYTES))
            last = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        end = orjson.loads(last)
    except (OSError, orjson.JSONDecodeError):
        return None
    found = end.get(name) if isinstance(end, dict) and end.get("type") == "end" else None
    return found if isinstance(found, str) and found else None


def print_agent_errors(report: RunReport, console: Console) -> None:
    """How many episodes ended in an agent error and the first one's traceback (or, when
    its log keeps none, why the runner ended it); nothing when none did."""
    errors = agent_errors(report)
    if not errors:
        return
    first = errors[0]
    where = f" ({markup(first.log)})" if first.log is not None else ""
    console.print(
        f"[red]agent errors:[/red] {len(errors)} of {plural(len(report.results), 'episode')} "
        "ended in an agent error (the agent raised, timed out or returned without "
        f"committing); the first, task {markup(first.spec.task_id)} trial {first.spec.trial}"
        f"{where}:"
    )
    trace = logged_traceback(first.log)
    text = trace or first.error or logged_detail(first.log) or "no cause recorded"
    for line in scrub(text).rstrip("\n").split("\n"):  # a log of an older server may hold one
        console.print(f"  {markup(line)}")
    if first.log is not None:
        console.print(f"the whole episode: evaluator explain {markup(first.log)}")


def errored_summary(report: RunReport) -> str:
    """One line on a run whose every episode ended in an error."""
    agent = len(agent_errors(report))
    infra = len(report.results) - agent
    parts = [plural(agent, "agent error"), plural(infra, "infrastructure error")]
    n = len(report.results)
    what = "the one episode" if n == 1 else f"all {n} episodes"
    return (
        f"{what} ended in an error ({', '.join(p for p in parts if not p.startswith('0 '))}), "
        "so the scores measure nothing"
    )
