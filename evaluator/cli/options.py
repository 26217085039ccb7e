"""What several `evaluator` commands share: their options, the error console, and scoring
the logs a command names (with progress, and one clear line for a wrong path)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from taurec.evaluator.defaults import DEFAULT_RULES, MAX_LOG_BYTES
from taurec.evaluator.text import markup, plural
from taurec.tasks.shipped import SUITE_CHOICES

if TYPE_CHECKING:
    from taurec.evaluator.labels import LabelFilter
    from taurec.evaluator.resolver import Resolver
    from taurec.evaluator.sealed import RunCheck
    from taurec.tasks.trajectory.signing import LogKey

err = Console(stderr=True, soft_wrap=True, highlight=False)


class Format(StrEnum):
    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"


#: The log files or folders a command reads.
LogDirsArg = Annotated[
    list[Path], typer.Argument(help="Log files or directories (searched recursively).")
]
SuiteOpt = Annotated[
    str | None,
    typer.Option("--suite", help=f"Score against this suite: {SUITE_CHOICES}."),
]
CatalogOpt = Annotated[
    str | None,
    typer.Option("--catalog", help="Score against this catalog file or .taurec-catalog folder."),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the bootstrap resampling.")]
RulesOpt = Annotated[
    str,
    typer.Option(
        "--rules",
        help="Rules profile: taurec (this project's checks), tau-rec (τ-Rec v1.0's own "
        "evaluator, loopholes included) or both, side by side.",
    ),
]


def rules_of(choice: str) -> list[str]:
    from taurec.evaluator.recommendation.rules import RULES, rules_names

    try:
        return rules_names(choice)
    except ValueError:
        err.print(
            f"[red]error:[/red] --rules {markup(repr(choice))} is not a rules profile; "
            f"expected {', '.join(RULES)} or both"
        )
        raise typer.Exit(2) from None


LabelOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--label",
        metavar="PATTERN",
        help="Only agent labels matching this shell-style pattern (e.g. 'llm*'); repeatable.",
    ),
]


def label_filter(patterns: list[str] | None, labels: Iterable[str]) -> LabelFilter:
    """The filter of the --label options; a pattern that matches none of `labels` (the
    labels in the logs) is one error line listing them, and exit 2."""
    from taurec.evaluator.labels import LabelFilter, no_match_message

    chosen = LabelFilter(tuple(patterns or ()))
    if missing := chosen.unmatched(labels):
        err.print(f"[red]error:[/red] {markup(no_match_message(missing[0], labels))}")
        raise typer.Exit(2)
    return chosen


def exit_if_nothing_counted(check: RunCheck) -> None:
    """Not one log counted (every one excluded, or failed before it could be scored): the
    first reason in one line, then exit 1 when the run's files are damaged (as `score`
    does whenever they are) and 2 otherwise (input that cannot be scored, such as an open
    run's suite folder without --suite)."""
    from taurec.evaluator.labels import nothing_counted

    if why := nothing_counted(check):
        err.print(f"[red]error:[/red] {markup(why)}")
        raise typer.Exit(1 if not check.clean else 2)


WorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="Processes to score with (default: 1 for small runs, else one per core).",
    ),
]


ReplayOpt = Annotated[
    bool,
    typer.Option(
        "--replay/--no-replay", help="Re-run logged catalog calls and report results that differ."
    ),
]


VerifyOpt = Annotated[
    bool,
    typer.Option(
        "--verify",
        help="Check every log's hash chain and signed end record; exclude (and list) the "
        "logs that fail, and exit 1 if any do.",
    ),
]
KeyFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--key-file",
        help="--verify: the server's log key file (default: $TAUREC_LOG_KEY, "
        "$TAUREC_LOG_KEY_FILE, or ~/.local/share/taurec/log.key).",
    ),
]


def verify_key(verify: bool, key_file: Path | None) -> LogKey | None:
    if key_file is not None and not verify:
        err.print("[red]error:[/red] --key-file applies to --verify only")
        raise typer.Exit(2)
    if not verify:
        return None
    from taurec.catalog.errors import DataError
    from taurec.tasks.trajectory.signing import load_log_key

    try:
        return load_log_key(key_file)
    except DataError as exc:
        err.print(f"[red]error:[/red] {markup(exc)}")
        raise typer.Exit(2) from None


MaxLogOpt = Annotated[
    int,
    typer.Option("--max-log-mb", min=1, help="Largest log read, in MiB (bigger: reported)."),
]


def score_logs(
    paths: list[Path],
    suite: str | None,
    catalog: str | None,
    workers: int | None = None,
    replay: bool = True,
    key: LogKey | None = None,
    max_log_mb: int = MAX_LOG_BYTES // 2**20,
    rules: str = DEFAULT_RULES,
) -> RunCheck:
    from taurec.evaluator.evaluate import evaluate
    from taurec.evaluator.files import NotARunFile
    from taurec.evaluator.logs import Resolver
    from taurec.evaluator.progress import scoring_progress

    resolver = Resolver(
        suite=suite,
        catalog=catalog,
        replay=replay,
        verify_key=key,
        max_log_bytes=max_log_mb * 2**20,
        rules=rules,
    )
    _open_named(resolver, suite, catalog)
    try:
        with scoring_progress(err) as progress:
            check = evaluate(paths, resolver, workers=workers, progress=progress)
    except (FileNotFoundError, NotARunFile) as exc:
        err.print(f"[red]error:[/red] {markup(exc)}")
        raise typer.Exit(2) from None
    if not check.scores and not check.excluded and not check.runs:
        where = ", ".join(map(str, paths))
        if check.skipped:  # only some other program's .jsonl files
            where += f" (skipped, not taurec logs: {plural(len(check.skipped), 'file')})"
        err.print(f"[yellow]no episode logs (*.jsonl) found under {markup(where)}[/yellow]")
        raise typer.Exit(1)
    return check


def _open_named(resolver: Resolver, suite: str | None, catalog: str | None) -> None:
    """A --suite or --catalog that cannot be used (a damaged catalog folder, say) is one
    error line and exit 2, not a failure reported against every log."""
    from taurec.catalog.errors import DataError
    from taurec.catalog.store import Catalog

    try:
        if suite is not None:
            resolver.context(None)  # loads the suite and catalog once, kept for scoring
        elif catalog is not None:
            Catalog.load(catalog)
    except DataError as exc:
        err.print(f"[red]error:[/red] {markup(exc)}")
        raise typer.Exit(2) from None
