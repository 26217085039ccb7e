"""One run from start to table, shared by `taurec run` and the Python `run_agent()`.

The rules live here once: the output folder must be a folder; a folder that already holds
logs of the same agent label on the same suite is refused unless resuming (two runs mixed
into one pass^k would be wrong without a word); a resume sets unfinished logs aside and
plays only what is missing (as its run register has it, for a sealed run: resume.py); a
run draws its progress on stderr and ends with the evaluator's table of that run on
stdout. Refusals are RunRefused with one line saying what to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from taurec.clients.runner.resume import by_register, read_run_register
from taurec.clients.runner.runner import Runner, RunReport
from taurec.clients.runner.sealing import find_plan
from taurec.evaluator.logs import Resolver
from taurec.evaluator.sealed import RunCheck

if TYPE_CHECKING:
    from taurec.tasks.runs.plan import RunPlan
    from taurec.tasks.suite import Suite


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
    protocols: Sequence[dict[str, Any]] | None = None,
    sealed: Suite | None = None,
) -> RunStart:
    """The run's episodes, after checking `out`: RunRefused when it already holds logs of
    `label` on `suite_id` and this is not a resume (unless `refuse_mixing` is off, as for
    a dry run, which plays nothing), or, for a stream run (`protocols`: its one, or its
    run and control arms'), logs of `label` played under another stream protocol (a
    resume would take them for its own). `sealed`: the suite, when the run serves its own
    sealed plan (a resume follows its register). `trials` counts every arm's."""
    check_out(out, names)
    specs = plan(task_ids, trials)
    done = existing(out, suite_id, label, protocols)
    if done.other_protocol and refuse_mixing:
        raise RunRefused(
            f"{out} holds {len(done.other_protocol)} episode logs of agent {label!r} on "
            f"suite {suite_id!r} played under another stream protocol (--feedback, --rules, "
            f"--shuffle-order, --customer-knows, --with-control); choose another {names.out} "
            "for this one"
        )
    if done and not resume and refuse_mixing:
        raise RunRefused(
            f"{out} already holds {len(done)} episode logs of agent {label!r} on suite "
            f"{suite_id!r}; add {names.resume} to keep them and play only what is missing, "
            f"or choose another {names.out} or {names.label}"
        )
    run = RunStart(specs, remaining(specs, done) if resume else specs, done)
    if resume and sealed is not None:
        earlier = find_plan(out, label, sealed)
        run = follow_register(out, run, earlier[0] if earlier else None)
    return run


def follow_register(out: Path, run: RunStart, plan: RunPlan | None) -> RunStart:
    """On resume of a run that plays the sealed `plan` here: what its run register lets
    play, when it has a sound one (resume.py); else `run` as the logs have it."""
    folder = None if plan is None else out / plan.run_id
    state = None if folder is None else read_run_register(folder)
    if folder is None or state is None:
        return run
    todo, done = by_register(run.specs, run.done, state, folder)
    return RunStart(run.specs, todo, done)


def set_aside_unfinished(out: Path, run: RunStart, console: Console) -> None:
    """On resume: move unfinished logs aside (they are played again) and say so."""
    if run.done.incomplete:
        moved = set_aside(out, run.done.incomplete)
        console.print(
            f"resume: set {len(moved)} unfinished episode logs aside in "
            f"{out / INCOMPLETE_DIR} (they will not be scored) and will play them again"
        )
    if run.done.unended:
        moved = set_aside(out, run.done.unended)
        console.print(
            f"resume: set {len(moved)} complete episode logs aside in {out / INCOMPLETE_DIR} "
            "whose end the run register never recorded (the run stopped between the two "
            "writes); they will not be scored, and their episodes will play again"
        )
    if run.done.closed:
        console.print(
            f"resume: {len(run.done.closed)} episodes count as failed and cannot be played "
            "again: the run register closed them without a finished log (evaluator score "
            f"{out} says why, e.g. task {run.done.closed[0].task_id} trial "
            f"{run.done.closed[0].trial})"
        )
    finished = len(run.specs) - len(run.todo) - len(run.done.closed)
    if finished > 0:
        console.print(f"resume: skipping {finished} finished episodes")


def play(runner: Runner, todo: list[EpisodeSpec], console: Console) -> RunReport:
    """Play `todo` with a progress bar (on a terminal) and running counts."""
    with RunProgress(len(todo), runner.agent.label, console) as progress:
        runner.on_result = progress
        return anyio.run(runner.run, todo)


def table(
    out: Path,
    report: RunReport | None,
    resolver: Resolver,
    suite: Suite,
    stdout: Console,
    stderr: Console,
    label: str,
) -> tuple[RunCheck, bool]:
    """Score everything under `out` (reusing this run's scores), print the evaluator's
    table of this run (agent `label` on `suite`; beside other rules profiles for a τ-Rec
    release) and what it found wrong with it; other runs in `out` are not shown.
    Returns this run's check and whether another rules profile was shown."""
    played = [r.score for r in report.results if r.score is not None] if report else []
    check = score_out(out, played, resolver)
    others = {name: rescore(out, resolver, name) for name in rules_for(suite.spec)[1:]}
    return print_report(check, stdout, stderr, others, run=(label, suite.id)), bool(others)


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
