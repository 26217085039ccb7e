"""One run from start to table, shared by `taurec run` and the Python `run_agent()`.

The rules live here once: the output folder must be a folder; a folder that already holds
logs of the same agent label on the same suite is refused unless resuming (two runs mixed
into one pass^k would be wrong without a word); a resume sets unfinished logs aside and
plays only what is missing; a run draws its progress on stderr and ends with the
evaluator's table on stdout. Refusals are RunRefused with one line saying what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from rich.console import Console
from rich.markup import escape

from taurec.clients.runner.plan import (
    INCOMPLETE_DIR,
    EpisodeSpec,
    Existing,
    existing,
    plan,
    remaining,
    set_aside,
)
from taurec.clients.runner.progress import RunProgress
from taurec.clients.runner.report import print_report, rescore, rules_for, score_out
from taurec.clients.runner.runner import Runner, RunReport
from taurec.evaluator.logs import Resolver
from taurec.evaluator.sealed import RunCheck


class RunRefused(ValueError):
    """The run cannot start as asked; the message says why and what to do, in one line."""


@dataclass(frozen=True)
class Names:
    """How the caller names the options a refusal points at (flags or keyword arguments)."""

    resume: str = "--resume"
    out: str = "--log-dir"
    label: str = "--label"


CLI_NAMES = Names()
PYTHON_NAMES = Names(resume="resume=True", out="out", label="label")


@dataclass
class RunStart:
    """What a run plays: every episode planned, the ones still to play, the ones found."""

    specs: list[EpisodeSpec]
    todo: list[EpisodeSpec]
    done: Existing = field(default_factory=Existing)


def check_out(out: Path, names: Names = CLI_NAMES) -> None:
    """RunRefused when `out` cannot be the log folder (a file, or under a file)."""
    for where in (out, *out.parents):
        if where.exists() and not where.is_dir():
            what = "is a file" if where == out else f"is under {where}, which is a file"
            raise RunRefused(f"{names.out} {out} {what}; expected a folder for the episode logs")


def start(
    out: Path,
    suite_id: str,
    label: str,
    task_ids: list[str],
    trials: int,
    *,
    resume: bool,
    names: Names = CLI_NAMES,
    refuse_mixing: bool = True,
    protocol: dict[str, Any] | None = None,
) -> RunStart:
    """The run's episodes, after checking `out`: RunRefused when it already holds logs of
    `label` on `suite_id` and this is not a resume (unless `refuse_mixing` is off, as for
    a dry run, which plays nothing), or, for a stream run (`protocol`), logs of `label`
    played under another stream protocol (a resume would take them for its own)."""
    check_out(out, names)
    specs = plan(task_ids, trials)
    done = existing(out, suite_id, label, protocol)
    if done.other_protocol and refuse_mixing:
        raise RunRefused(
            f"{out} holds {len(done.other_protocol)} episode logs of agent {label!r} on "
            f"suite {suite_id!r} played under another stream protocol (--feedback, --rules, "
            f"--shuffle-order); choose another {names.out} for this one"
        )
    if done and not resume and refuse_mixing:
        raise RunRefused(
            f"{out} already holds {len(done)} episode logs of agent {label!r} on suite "
            f"{suite_id!r}; add {names.resume} to keep them and play only what is missing, "
            f"or choose another {names.out} or {names.label}"
        )
    return RunStart(specs, remaining(specs, done) if resume else specs, done)


def set_aside_unfinished(out: Path, run: RunStart, console: Console) -> None:
    """On resume: move unfinished logs aside (they are played again) and say so."""
    if run.done.incomplete:
        moved = set_aside(out, run.done.incomplete)
        console.print(
            f"resume: set {len(moved)} unfinished episode logs aside in "
            f"{out / INCOMPLETE_DIR} (they will not be scored) and will play them again"
        )
    if len(run.specs) > len(run.todo):
        console.print(f"resume: skipping {len(run.specs) - len(run.todo)} finished episodes")


def play(runner: Runner, todo: list[EpisodeSpec], console: Console) -> RunReport:
    """Play `todo` with a progress bar (on a terminal) and running counts."""
    with RunProgress(len(todo), runner.agent.label, console) as progress:
        runner.on_result = progress
        return anyio.run(runner.run, todo)


def table(
    out: Path,
    report: RunReport | None,
    resolver: Resolver,
    suite_spec: str,
    stdout: Console,
    stderr: Console,
) -> tuple[RunCheck, bool]:
    """Score everything under `out` (reusing this run's scores), print the evaluator's
    table (beside other rules profiles for a τ-Rec release) and what it found wrong.
    Returns the check and whether another rules profile was shown."""
    played = [r.score for r in report.results if r.score is not None] if report else []
    check = score_out(out, played, resolver)
    others = {name: rescore(out, resolver, name) for name in rules_for(suite_spec)[1:]}
    print_report(check, stdout, stderr, others)
    return check, bool(others)


def all_infra_errors(report: RunReport) -> bool:
    """Every episode this run played ended as an infrastructure error (no key, provider
    down): the numbers measure nothing, so the run fails."""
    return bool(report.results) and all(r.infra_error for r in report.results)


def infra_summary(report: RunReport) -> str:
    """One line on an all-infrastructure-errors run, naming the first cause."""
    first = next((r.error for r in report.results if r.error), None) or "no cause recorded"
    n = len(report.results)
    what = (
        "the one episode ended as an infrastructure error"
        if n == 1
        else (f"all {n} episodes ended as infrastructure errors")
    )
    return f"{what}, so the scores measure nothing; the first cause: {escape(first)}"
