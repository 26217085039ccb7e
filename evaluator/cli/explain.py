"""`evaluator explain`: every verdict of each episode log with its evidence, then the
conversation, numbered by log seq (the `seq` of each event, as verdicts cite them)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console

from taurec.evaluator.episodes.conversation import conversation
from taurec.evaluator.episodes.model_calls import MODEL, summary
from taurec.evaluator.evaluate import available_key
from taurec.evaluator.logs import Resolver, score_log
from taurec.evaluator.render import print_explanation
from taurec.evaluator.sealed import plan_specs, read_registers
from taurec.evaluator.text import markup
from taurec.tasks.runs.register import REGISTER_NAME
from taurec.tasks.trajectory.reader import read_log
from taurec.tasks.trajectory.secrets import Scrubber

#: Characters of a tool call's arguments or result shown on its line.
SHOWN_CHARS = 160
#: Folders above a log searched for its run's register (plan-*/task/trial.jsonl: 2).
REGISTER_DEPTH = 3


def _lines(text: str) -> str:
    """Message text for the terminal: its line breaks kept, anything else escaped."""
    return "\n          ".join(markup(line) for line in text.split("\n"))


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def print_conversation(entries: list[dict[str, Any]], console: Console) -> None:
    console.print("[bold]conversation[/bold]")
    for e in entries:
        seq = f"[dim]seq {e['seq']:>3}[/dim]"
        if e["role"] == "tool":
            console.print(
                f"{seq} [cyan]tool[/cyan]  {markup(e['name'])}({markup(_short(e['arguments']))})"
            )
            r = e["result"]
            if r is not None:
                what = "[red]error[/red]" if r["is_error"] else "result"
                console.print(
                    f"[dim]seq {r['seq']:>3}[/dim]   → {what} {markup(_short(r['content']))}"
                )
        elif e["role"] == MODEL:
            console.print(f"{seq} [yellow]model[/yellow] {markup(summary(e))}")
        elif e["role"] == "end":
            item = f" {markup(e['item_id'])}" if e.get("item_id") else ""
            detail = f" ({markup(e['detail'])})" if e.get("detail") else ""
            console.print(f"{seq} [bold]end[/bold]   {markup(e['reason'])}{item}{detail}")
            if e.get("traceback"):
                console.print(
                    f"          [red]the agent's traceback:[/red]\n          {_lines(e['traceback'].rstrip())}"
                )
        else:
            who = "[blue]user[/blue] " if e["role"] == "user" else "[magenta]agent[/magenta]"
            note = " [dim](not sent)[/dim]" if e.get("delivered") is False else ""
            console.print(f"{seq} {who} {_lines(e['text'])}{note}")
            if e.get("acts"):
                acts = ", ".join(
                    " ".join(str(x) for x in (a.get("intent"), a.get("slot"), a.get("value")) if x)
                    for a in e["acts"]
                )
                console.print(
                    f"          [dim]acts ({markup(e.get('acts_by') or '?')}): {markup(acts)}[/dim]"
                )


def _registers_of(files: list[Path]) -> list[Path]:
    """The run registers of the logs' runs (a register sits in a folder above its logs)."""
    found = set()
    for f in files:
        for folder in list(f.resolve().parents)[:REGISTER_DEPTH]:
            if (folder / REGISTER_NAME).is_file():
                found.add(folder / REGISTER_NAME)
                break
    return sorted(found)


def allowed_suites(files: list[Path]) -> frozenset[str]:
    """The suites the logs' run plans name: the evaluator loads these (and the built-in
    suite or --suite), never one a log names on its own."""
    registers, _ = read_registers(_registers_of(files), available_key())
    return plan_specs(registers)


def explain_logs(files: list[Path], resolvers: list[Resolver], console: Console) -> None:
    """Explain each log under each resolver (one per rules profile); suites load once."""
    allowed = allowed_suites(files)
    resolvers = [replace(r, allowed_specs=r.allowed_specs | allowed) for r in resolvers]
    for path in files:
        log = read_log(path)
        if log.foreign:  # a stray notes.jsonl in a folder of logs
            console.print(f"[yellow]skipped:[/yellow] {markup(str(path))}: not a taurec log\n")
            continue
        for resolver in resolvers:
            print_explanation(score_log(log, resolver), console)
        # a log of an older server may hold a key in an abort's arguments or its traceback
        print_conversation(Scrubber().tree(conversation(log.events)), console)
        console.print()
