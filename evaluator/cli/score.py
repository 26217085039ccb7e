"""`evaluator score`: every log scored, one report per agent label and run, as a table,
Markdown or JSON.

Exit codes: 0 scored; 1 a log is excluded or a run's files are damaged (or, with
--strict, any log has a problem); 2 bad input: a --label that matches no label, or logs
of which not one could be counted though the run's files are sound (e.g. an open run's
suite folder without --suite). When nothing counts, the last line on stderr says why.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from taurec.evaluator.cli.options import (
    CatalogOpt,
    Format,
    KeyFileOpt,
    LabelOpt,
    LogDirsArg,
    MaxLogOpt,
    ReplayOpt,
    RulesOpt,
    SeedOpt,
    SuiteOpt,
    VerifyOpt,
    WorkersOpt,
    err,
    exit_if_nothing_counted,
    label_filter,
    rules_of,
    score_logs,
    verify_key,
)
from taurec.evaluator.defaults import DEFAULT_RULES, MAX_LOG_BYTES
from taurec.evaluator.text import markup, plural

if TYPE_CHECKING:
    from taurec.evaluator.labels import LabelFilter
    from taurec.evaluator.sealed import RunCheck
    from taurec.tasks.trajectory.signing import LogKey


def score(
    logdirs: LogDirsArg,
    json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object (the stable interface).")
    ] = False,
    fmt: Annotated[
        Format, typer.Option("--format", help="table, markdown or json.")
    ] = Format.TABLE,
    suite: SuiteOpt = None,
    catalog: CatalogOpt = None,
    label: LabelOpt = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when any log has a problem.")
    ] = False,
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    replay: ReplayOpt = True,
    verify: VerifyOpt = False,
    key_file: KeyFileOpt = None,
    max_log_mb: MaxLogOpt = MAX_LOG_BYTES // 2**20,
    rules: RulesOpt = DEFAULT_RULES,
) -> None:
    """Score every episode log and print one report per agent label and run.

    Every log's hash chain is checked (no key needed); --verify adds the signatures. A
    sealed run is scored by its plan: a planned episode that is missing or damaged counts
    as a failure. Exits 1 when a log is excluded or a run's files are damaged, 2 when not
    one log could be counted for another reason."""
    from taurec.evaluator.aggregate import aggregate
    from taurec.evaluator.labels import labels_of, nothing_counted, select_check

    names = rules_of(rules)
    key = verify_key(verify, key_file)
    by_rules: dict[str, list[dict]] = {}
    chosen: LabelFilter | None = None
    for name in names:
        check = score_logs(logdirs, suite, catalog, workers, replay, key, max_log_mb, name)
        if chosen is None:
            chosen = label_filter(label, labels_of(check))
        # every group is aggregated (a stream run is paired with its control run), then chosen
        groups = aggregate(check.scores, seed=seed)
        by_rules[name] = [{**g, "rules": name} for g in groups if chosen.matches(g["label"])]
    assert chosen is not None
    check = select_check(check, lambda s: chosen.matches(s.label))
    groups = by_rules[names[0]]
    problems = [p for s in check.scores for p in s.problems]
    if json or fmt is Format.JSON:  # printed even when nothing counts: it says why
        _print_json(check, groups, by_rules, problems, key, rules, chosen)
    elif nothing_counted(check) is None:  # else no numbers to show, only what went wrong
        _print_tables(groups, by_rules, fmt)
    _report(check, groups, problems, key)
    exit_if_nothing_counted(check)
    if not check.clean or (strict and problems):
        raise typer.Exit(1)


def _print_tables(
    groups: list[dict[str, Any]], by_rules: dict[str, list[dict[str, Any]]], fmt: Format
) -> None:
    from taurec.evaluator.markdown import markdown
    from taurec.evaluator.render import print_faults, print_groups, print_side_by_side

    if fmt is Format.MARKDOWN:
        sys.stdout.write(markdown([g for named in by_rules.values() for g in named]))
        return
    if len(by_rules) > 1:
        print_side_by_side(by_rules, Console())
    else:
        print_groups(groups, Console())
    print_faults(groups, Console())


def _print_json(
    check: RunCheck,
    groups: list[dict[str, Any]],
    by_rules: dict[str, list[dict[str, Any]]],
    problems: list[str],
    key: LogKey | None,
    rules: str,
    chosen: LabelFilter,
) -> None:
    from importlib.metadata import version

    import orjson

    from taurec.evaluator.render import replay_counts

    doc: dict[str, Any] = {
        "format": "taurec-score",
        "format_version": 1,
        "evaluator_version": version("taurec"),
        "rules": rules,
        "groups": groups,
        "runs": check.runs,
        "excluded": [{"path": s.path, "why": why} for s, why in check.excluded],
        "run_problems": check.problems,
        "problems": problems,
    }
    if chosen:
        doc["labels"] = list(chosen.patterns)
    if len(by_rules) > 1:
        doc["by_rules"] = by_rules
    if key is not None:
        doc["verification"] = {
            "key_id": key.key_id,
            "verified": len(check.scores) - sum(s.sealed_failure is not None for s in check.scores),
            "failed": [{"path": s.path, "problem": why} for s, why in check.excluded],
            **replay_counts(check.scores + [s for s, _ in check.excluded]),
        }
    sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")


def _report(
    check: RunCheck, groups: list[dict[str, Any]], problems: list[str], key: LogKey | None
) -> None:
    """On stderr: what the evaluator found wrong, a flag per group whose every episode
    ended in an agent error, and a warning per open-mode group."""
    from taurec.evaluator.render import all_agent_errors, report_check

    report_check(check, problems, key, err)
    for g in groups:
        if (flag := all_agent_errors(g)) is not None:
            err.print(f"[red]agent errors:[/red] {markup(g['label'])}: {markup(flag)}")
        if g["mode"] == "open":
            err.print(
                f"[yellow]warning:[/yellow] {markup(g['label'])}: "
                f"{plural(g['n_episodes'], 'episode')} from "
                "an open server (no run plan): any client could start any episode under any "
                "label, so these numbers are not comparable with sealed runs"
            )
