"""A person as the agent (`taurec play`): they type messages to the simulated user, or
commands that call the catalog tools. Logged like any agent, under the label "human".
"""

from __future__ import annotations

import shlex
import typing
from collections.abc import Awaitable, Callable
from typing import Any, Final

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from taurec.catalog.filter import FilterSpec
from taurec.clients.agents.base import Episode, ToolOutcome

HELP: Final = """\
Type a message to the user, or a command:
  /search WORDS              free-text search of the catalog
  /filter FIELD=VALUE ...    structured search, e.g. /filter genres_any=Comedy runtime_max=100
                             (lists: comma-separated; quote values with spaces:
                             genres_all="Science Fiction",Action)
  /item ID                   every field of a title
  /avail ID                  can this user stream it?
  /history                   what this user has watched
  /content ID|RATING         does the user's profile allow a title, or a rating (e.g. R)?
  /recommend ID [MESSAGE]    commit a title (ends the episode)
  /abstain [MESSAGE]         commit to "nothing fits" (ends the episode)
  /help                      this text
  /quit                      give up (logged as agent_error)"""

RATINGS: Final = frozenset({"G", "PG", "PG-13", "R", "NC-17", "NR"})
ReadLine = Callable[[str], Awaitable[str | None]]  # None: end of input


def _is_list(name: str) -> bool:
    return typing.get_origin(FilterSpec.model_fields[name].annotation) is list


def filter_arguments(words: list[str]) -> dict[str, Any]:
    """`FIELD=VALUE` words as filter_catalog arguments; ValueError naming a bad one."""
    out: dict[str, Any] = {}
    for word in words:
        name, sep, value = word.partition("=")
        if not sep or name not in FilterSpec.model_fields:
            fields = ", ".join(FilterSpec.model_fields)
            raise ValueError(f"{word!r}: expected FIELD=VALUE with FIELD one of {fields}")
        if _is_list(name):
            out[name] = [v.strip() for v in value.split(",") if v.strip()]
        elif name in ("runtime_min", "runtime_max", "min_votes", "limit"):
            try:
                out[name] = int(value)
            except ValueError:
                raise ValueError(f"{name}: expected a whole number, got {value!r}") from None
        elif name == "min_rating":
            try:
                out[name] = float(value)
            except ValueError:
                raise ValueError(f"{name}: expected a number, got {value!r}") from None
        else:
            out[name] = value
    return out


class HumanAgent:
    """Plays an episode from lines a person types (`read_line`), showing results on
    `console`."""

    def __init__(self, read_line: ReadLine, console: Console, label: str = "human") -> None:
        self.label = label
        self._read = read_line
        self._out = console

    async def run(self, episode: Episode) -> None:
        say = self._out.print
        say(f"[bold]episode[/bold] {episode.episode_id[:8]} of task {episode.task_id}: "
            f"{episode.max_turns} messages at most. /help lists the commands.")  # fmt: skip
        say(f"[bold cyan]user:[/bold cyan] {escape(episode.opening)}")
        while not episode.ended:
            line = await self._read("> ")
            if line is None:
                return  # end of input: give up
            line = line.strip()
            if not line:
                continue
            if not line.startswith("/"):
                turn = await episode.say(line)
                say(f"[bold cyan]user:[/bold cyan] {escape(turn.text)}")
                if turn.ended:
                    say(f"[yellow]the episode has ended ({episode.end_reason})[/yellow]")
                else:
                    say(f"[dim]({turn.turns_left} messages left)[/dim]")
                continue
            if await self._command(episode, line) is False:
                return

    async def _command(self, episode: Episode, line: str) -> bool:
        """Run one command; False to stop playing."""
        head, _, rest = line.partition(" ")
        rest = rest.strip()
        command = head.lower()
        if command in ("/quit", "/exit"):
            return False
        if command == "/help":
            self._out.print(escape(HELP))
            return True
        try:
            outcome = await self._call(episode, command, rest)
        except ValueError as exc:
            self._out.print(f"[red]{escape(str(exc))}[/red]")
            return True
        if outcome is not None:
            self._show(command, outcome)
        return True

    async def _call(self, episode: Episode, command: str, rest: str) -> ToolOutcome | None:
        def need(what: str) -> str:
            if not rest:
                raise ValueError(f"{command} needs {what}; /help lists the commands")
            return rest.split()[0]

        match command:
            case "/search":
                need("some words")
                return await episode.call("search_catalog", query=rest, limit=10)
            case "/filter":
                return await episode.call("filter_catalog", **filter_arguments(shlex.split(rest)))
            case "/item":
                return await episode.call("get_item", item_id=need("an item id"))
            case "/avail":
                return await episode.call("check_availability", item_id=need("an item id"))
            case "/history":
                return await episode.call("get_user_history")
            case "/content":
                value = need("an item id or a rating")
                if value.upper() in RATINGS:
                    return await episode.call(
                        "check_content_preference", content_rating=value.upper()
                    )
                return await episode.call("check_content_preference", item_id=value)
            case "/recommend":
                item_id = need("an item id")
                message = rest[len(item_id) :].strip() or None
                return await episode.recommend(item_id, message)
            case "/abstain":
                return await episode.recommend(None, rest or None)
        raise ValueError(f"unknown command {command}; /help lists the commands")

    def _show(self, command: str, outcome: ToolOutcome) -> None:
        say = self._out.print
        if outcome.is_error:
            say(f"[red]{escape(outcome.text)}[/red]")
            return
        data = outcome.data
        rows = data.get("hits") if command == "/search" else data.get("items")
        if command in ("/search", "/filter") and isinstance(rows, list):
            self._listing(rows, data.get("total"))
        elif command == "/history":
            for w in data.get("watched", []):
                say(
                    f"  {w['item_id']}  {escape(w['title'])} ({w['year']})  rated {w.get('rating')}"
                )
            if not data.get("watched"):
                say("  (nothing watched)")
        elif command in ("/recommend", "/abstain"):
            say(f"[bold cyan]user:[/bold cyan] {escape(str(data.get('user_reaction', '')))}")
            say(f"[yellow]the episode has ended ({data.get('end_reason')})[/yellow]")
        else:
            for key, value in data.items():
                if value not in (None, [], ""):
                    say(f"  [bold]{key}[/bold]: {escape(str(value))}")

    def _listing(self, rows: list[dict[str, Any]], total: object) -> None:
        table = Table(show_edge=False, pad_edge=False)
        for col in ("id", "title", "year", "min", "genres", "rating", "rated", "services", "sp."):
            table.add_column(col)
        for r in rows:
            table.add_row(
                r["id"], escape(r["title"]), str(r["year"]), str(r["runtime"]),
                ", ".join(r["genres"]), f"{r['rating']:.1f}", r["content_rating"],
                ", ".join(r["streaming_services"]), "yes" if r["sponsored"] else "",
            )  # fmt: skip
        self._out.print(table)
        if total is not None:
            self._out.print(f"[dim]{len(rows)} of {total} shown[/dim]")
