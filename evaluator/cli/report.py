"""The `evaluator report` command's work: check the output, score the logs, write the
page. Every input error is one line and exit code 2."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from taurec.evaluator.text import markup


class ReportError(Exception):
    """Bad input to `evaluator report` (exit 2): the message names it."""


def check_output(out: Path) -> None:
    """ReportError unless `out` can be written as a file."""
    if out.is_dir():
        raise ReportError(f"-o {out} is a folder; expected an .html file to write")
    if not out.parent.is_dir():
        raise ReportError(f"-o {out} cannot be written: no folder {out.parent}")
    if not os.access(out.parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise ReportError(f"-o {out} cannot be written: permission denied")


def write_report(
    logdirs: Sequence[Path],
    out: Path,
    *,
    title: str,
    suite: str | None,
    catalog: str | None,
    rules: str,
    seed: int,
    workers: int | None,
    err: Console,
) -> None:
    """Score `logdirs` and write the report to `out`; ReportError on bad input."""
    check_output(out)
    from taurec.evaluator.aggregate import aggregate
    from taurec.evaluator.evaluate import evaluate
    from taurec.evaluator.logs import Resolver
    from taurec.evaluator.progress import scoring_progress
    from taurec.evaluator.report.build import render_report
    from taurec.evaluator.report.data import load_judgements

    resolver = Resolver(suite=suite, catalog=catalog, rules=rules)
    try:
        with scoring_progress(err) as progress:
            check = evaluate(list(logdirs), resolver, workers=workers, progress=progress)
    except FileNotFoundError as exc:
        raise ReportError(str(exc)) from None
    if not check.scores:
        where = ", ".join(map(str, logdirs))
        raise ReportError(f"no episode logs (*.jsonl) found under {where}")
    page = render_report(
        aggregate(check.scores, seed=seed),
        check.scores,
        load_judgements(logdirs, warn=lambda line: _left_out(line, err)),
        title=title,
        sources=[str(p) for p in logdirs],
    )
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"-o {out} cannot be written: {exc.strerror}") from None
    err.print(f"wrote {markup(out)} ({len(check.scores)} episodes, {len(page) // 1024} KiB)")


def _left_out(line: str, err: Console) -> None:
    err.print(f"[yellow]warning:[/yellow] judge file {markup(line)}; left out of the report")
