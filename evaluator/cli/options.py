"""What several `evaluator` commands share: their options, the error console, and scoring
the logs a command names (with progress, and one clear line for a wrong path)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from taurec.evaluator.defaults import DEFAULT_RULES, MAX_LOG_BYTES
from taurec.evaluator.text import markup

if TYPE_CHECKING:
    from taurec.evaluator.resolver import Resolver
    from taurec.evaluator.sealed import RunCheck
    from taurec.tasks.trajectory.signing import LogKey

err = Console(stderr=True, soft_wrap=True, highlight=False)


class Format(StrEnum):
    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"


SuiteOpt = Annotated[
    str | None,
    typer.Option("--suite", help="Score against this suite (builtin, a folder, tau-rec:PATH)."),
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
        err.print(
            f"[yellow]no episode logs (*.jsonl) found under {markup(', '.join(map(str, paths)))}"
            "[/yellow]"
        )
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
