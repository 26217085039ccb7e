"""`taurec tasks info`: what a stream suite is like, and how the baselines do on it.

For a stream suite (`stream:builtin`, a folder): its shape (streams per setting,
episodes, feedback kinds, utility source, choice-set sizes), the spread of its utilities
(within-set SD, tied and ceiling bests, mean best; see taurec.tasks.stream.statistics)
and the regret of the baselines played in process with the rule-based customer:
random (its exact expectation), popularity, the probing agent and the learner (see
taurec.clients.agents.stream.baseline_regrets). `--json` prints the same as JSON. A
ranking suite, or `--interactions SOURCE`, is described by ranking_info.py; a suite of
another kind gets one line and exit code 2.
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from taurec.clients.agents.stream.baseline_regrets import BaselineRegret
    from taurec.tasks.stream.statistics import SuiteStatistics

# `taurec tasks info --help` loads this module: the suite, the statistics and the agents
# are imported in the command's body.


def _console() -> Console:
    wide = not os.isatty(1) and "COLUMNS" not in os.environ
    return Console(width=140 if wide else None, highlight=False)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items())


def _pct(share: float) -> str:
    return f"{100 * share:.1f}%"


def _fmt(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.1f}"


def info_cmd(
    suite: Annotated[
        str | None,
        typer.Argument(help="A stream or ranking suite: 'stream:builtin' or a folder."),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the same as JSON.")] = False,
    interactions: Annotated[
        str | None,
        typer.Option(
            "--interactions",
            help="Describe an interaction source (e.g. amazon:REVIEWS,META;window=agenticrec) "
            "instead of a suite.",
        ),
    ] = None,
) -> None:
    """Describe a stream suite (its shape, the spread of its utilities, baseline regrets),
    a ranking suite or an interaction source (users, items, interactions, sparsity).

    A stream suite's baselines are played in process with the rule-based customer
    (seed 0): random (its exact expected regret), popularity, the probing agent (asks
    about items one by one: a check that the customer gives no utilities away) and the
    learner.
    """
    from taurec.catalog.errors import DataError
    from taurec.clients.agents.stream.baseline_regrets import baseline_regrets
    from taurec.clients.cli.ranking_info import interactions_info, ranking_info
    from taurec.tasks.stream.statistics import suite_statistics
    from taurec.tasks.suite import load_suite

    if (suite is None) == (interactions is None):
        typer.echo("error: expected a suite or --interactions SOURCE (one of them)", err=True)
        raise typer.Exit(2)
    if interactions is not None:
        interactions_info(interactions, json_out)
        return
    try:
        loaded = load_suite(str(suite))
    except DataError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    other_kind = {"ranking": ranking_info}.get(loaded.kind)
    if other_kind is not None:
        other_kind(loaded, json_out)
        return
    if loaded.kind != "stream":
        typer.echo(
            f"error: {suite} is a {loaded.kind} suite; taurec tasks info describes stream "
            "and ranking suites",
            err=True,
        )
        raise typer.Exit(2)
    stats = suite_statistics(loaded.tasks)
    with Console(stderr=True).status(f"playing the baselines on {stats.streams} streams"):
        regrets = baseline_regrets(loaded.tasks)
    if json_out:
        doc = {
            "suite_id": loaded.id,
            "spec": loaded.spec,
            **dataclasses.asdict(stats),
            "baselines": {"random": _random(stats), **{r.agent: _regret(r) for r in regrets}},
        }
        typer.echo(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode())
        return
    _print(_console(), loaded.id, loaded.spec, stats, regrets)


def _random(stats: SuiteStatistics) -> dict[str, Any]:
    """Random's exact expected regret, shaped as the played baselines' figures."""
    return {
        "regret": stats.utilities.random_regret,
        "questions": 0.0,
        "by_setting": {
            s: {"regret": u.random_regret, "questions": 0.0} for s, u in stats.by_setting.items()
        },
    }


def _regret(r: BaselineRegret) -> dict[str, Any]:
    return {
        **dataclasses.asdict(r.overall),
        "by_setting": {s: dataclasses.asdict(v) for s, v in r.by_setting.items()},
    }


def _print(
    console: Console,
    suite_id: str,
    spec: str,
    stats: SuiteStatistics,
    regrets: list[BaselineRegret],
) -> None:
    u = stats.utilities
    lengths = "/".join(str(n) for n in stats.episodes_per_stream)
    rows = [
        ("streams per setting", _counts(stats.streams_per_setting)),
        ("episodes", f"{stats.episodes} ({lengths} per stream)"),
        ("feedback (streams)", _counts(stats.feedback)),
        ("utility source (streams)", _counts(stats.utility_source)),
        (
            "choice-set size",
            f"{stats.set_size_min}-{stats.set_size_max} (mean {stats.set_size_mean:.1f})",
        ),
        ("within-set utility SD", f"mean {_fmt(u.sd_mean)}, median {_fmt(u.sd_median)}"),
        ("tied best", f"{_pct(u.tied_best)} of episodes"),
        ("best = 100", f"{_pct(u.best_at_ceiling)} of episodes"),
        ("mean best", _fmt(u.mean_best)),
    ]
    console.print(f"[bold]Suite {suite_id}[/] ({spec}): {stats.streams} streams")
    width = max(len(name) for name, _ in rows) + 2
    for name, value in rows:
        console.print(f"  {name:<{width}}{value}")
    settings = list(stats.by_setting)
    table = Table(title="Regret per episode (rule-based customer, seed 0)")
    for col in ("agent", "all", *settings, "questions", "episode 1 → last"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    table.add_row(
        "random (expected)",
        _fmt(u.random_regret),
        *(_fmt(stats.by_setting[s].random_regret) for s in settings),
        "0.0",
        "",
    )
    for r in regrets:
        cells = [_fmt(r.by_setting[s].regret) if s in r.by_setting else "-" for s in settings]
        trend = f"{_fmt(r.overall.curve[0])} → {_fmt(r.overall.curve[-1])}"
        table.add_row(r.agent, _fmt(r.overall.regret), *cells, _fmt(r.overall.questions), trend)
    console.print(table)
    learner = next((r for r in regrets if r.agent == "learner"), None)
    if learner is not None:
        for s, v in learner.by_setting.items():
            console.print(f"learner, {s}: " + " ".join(_fmt(x) for x in v.curve))
