"""The `evaluator report` command's work: check the output, score the logs, write the
page. Every input error is one line and exit code 2."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from taurec.evaluator.text import markup

if TYPE_CHECKING:
    from taurec.evaluator.logs import Resolver
    from taurec.evaluator.report.links import EpisodeLinks


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
    labels: Sequence[str] = (),
    bundle: Path | None = None,
    viewer: str | None = None,
) -> None:
    """Score `logdirs` and write the report to `out`; ReportError on bad input. `labels`:
    only the agent labels matching one of these patterns (each must match one). Failed
    episodes link to their page in the viewer's bundle: written to `bundle` with the
    report, or one written before at `viewer` (a folder or a URL); else to their logs."""
    check_output(out)
    links = _links(out, bundle, viewer)
    from taurec.evaluator.aggregate import aggregate
    from taurec.evaluator.evaluate import evaluate
    from taurec.evaluator.labels import LabelFilter, labels_of, no_match_message, select_check
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
    chosen = LabelFilter(tuple(labels))
    if missing := chosen.unmatched(labels_of(check)):
        raise ReportError(no_match_message(missing[0], labels_of(check)))
    # every group is aggregated (a stream run is paired with its control run), then chosen
    groups = [g for g in aggregate(check.scores, seed=seed) if chosen.matches(g["label"])]
    check = select_check(check, lambda s: chosen.matches(s.label))
    if bundle is not None:
        links = _write_bundle(list(logdirs), resolver, labels, bundle, out, err)
    page = render_report(
        groups,
        check.scores,
        load_judgements(logdirs, warn=lambda line: _left_out(line, err)),
        title=title,
        sources=[str(p) for p in logdirs],
        links=links,
    )
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"-o {out} cannot be written: {exc.strerror}") from None
    err.print(f"wrote {markup(out)} ({len(check.scores)} episodes, {len(page) // 1024} KiB)")


def _links(out: Path, bundle: Path | None, viewer: str | None) -> EpisodeLinks:
    """The report's links, checked before any scoring; ReportError on a bad option."""
    from taurec.evaluator.report.links import BundleError, links_for

    if bundle is not None and viewer is not None:
        raise ReportError("--bundle and --viewer: give one (--bundle writes the viewer too)")
    if bundle is not None and bundle.exists() and not bundle.is_dir():
        raise ReportError(f"--bundle {bundle}: not a folder; expected a folder to write")
    if bundle is not None and out.resolve() == (bundle / "index.html").resolve():
        raise ReportError(f"-o {out} is the viewer's page in --bundle {bundle}; name another")
    try:
        return links_for(out, viewer=viewer)  # to the logs until the bundle is written
    except BundleError as exc:
        raise ReportError(f"--viewer {exc}") from None


def _write_bundle(
    logdirs: list[Path],
    resolver: Resolver,
    labels: Sequence[str],
    bundle: Path,
    out: Path,
    err: Console,
) -> EpisodeLinks:
    """Write the viewer's bundle of the same logs and labels; the links into it."""
    from taurec.evaluator.labels import LabelFilter
    from taurec.evaluator.report.links import links_for
    from taurec.evaluator.viewer.bundle import write_bundle
    from taurec.evaluator.viewer.data import LogSet

    logs = LogSet(logdirs, resolver, labels=LabelFilter(tuple(labels)))
    try:
        n = write_bundle(logs, bundle)
    except OSError as exc:
        raise ReportError(f"--bundle {bundle} cannot be written: {exc.strerror}") from None
    err.print(f"wrote the viewer with {n} episodes to {markup(bundle)}")
    return links_for(out, bundle=bundle)


def _left_out(line: str, err: Console) -> None:
    err.print(f"[yellow]warning:[/yellow] judge file {markup(line)}; left out of the report")
