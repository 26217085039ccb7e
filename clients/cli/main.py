"""The `taurec` command: serve, run, play, tasks, catalog, plan, dialogues, crs-demo, a2a-demo,
mock-llm.

Each command lives in its own module; the group below imports a command's module only
when that command runs or shows its own help, so `taurec --help` and `taurec --version`
stay instant. A command's module keeps typer, rich, the standard library and light option
modules at its top and imports the MCP SDK, numpy, scipy and the catalog in the command's
body, so its own `--help` is instant too. A new command gets an entry in COMMANDS;
importing its module here, or the heavy stack at its module's top, would undo that
(tests/clients/cli/test_startup.py checks every command path's `--help`). An `evaluator`
command typed after `taurec` (`taurec view logs/`) is a usage error that names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import typer
from typer.core import TyperCommand

from taurec.clients.cli.startup import prepare
from taurec.evaluator.cli.command_line import CommandGroup, add_version_option, run_app

if TYPE_CHECKING:
    # typer ships its own click; these are the types its groups deal in
    from typer._click import Command, Context


@dataclass(frozen=True)
class CommandEntry:
    """Where a command lives and the line `taurec --help` shows for it."""

    module: str
    attribute: str  # a command function, or a Typer app of subcommands
    summary: str


#: every `taurec` command, in the order `taurec --help` lists them
COMMANDS: dict[str, CommandEntry] = {
    "serve": CommandEntry(
        "taurec.clients.cli.serve",
        "serve",
        "Serve the benchmark to MCP agents. Logs one JSONL file per episode.",
    ),
    "run": CommandEntry(
        "taurec.clients.cli.run",
        "run",
        "Run an agent over tasks x trials through the MCP server, then score the logs.",
    ),
    "play": CommandEntry(
        "taurec.clients.cli.play",
        "play",
        "Play one episode as the agent: talk to the simulated user, search, recommend.",
    ),
    "tasks": CommandEntry(
        "taurec.clients.cli.tasks",
        "app",
        "Task suites: validate them, print their answer keys, generate new ones.",
    ),
    "catalog": CommandEntry(
        "taurec.clients.cli.catalog",
        "app",
        "Catalogs: generate synthetic ones, build from TMDB, import τ-Rec's, inspect.",
    ),
    "plan": CommandEntry("taurec.clients.cli.plan", "app", "Plans for sealed runs."),
    "dialogues": CommandEntry(
        "taurec.clients.cli.dialogues",
        "app",
        "Annotated dialogues: export logs as DialogueKit JSON, import DialogueKit JSON.",
    ),
    "crs-demo": CommandEntry(
        "taurec.clients.cli.crs_demo",
        "crs_demo",
        "Serve a small rule-based CRS (iEvaLM / CRS Arena protocol, GET/POST /) for `taurec run --agent crs`.",
    ),
    "a2a-demo": CommandEntry(
        "taurec.clients.cli.a2a_demo",
        "a2a_demo",
        "Serve a reference A2A agent (the scripted policy over the MCP URL it is handed) for "
        "`taurec run --agent a2a`. Needs the a2a extra.",
    ),
    "mock-llm": CommandEntry(
        "taurec.clients.cli.mock_llm",
        "mock_llm",
        "Serve an OpenAI-compatible stand-in model (taurec's scripted policy), for trying "
        "frameworks offline.",
    ),
}


def load_command(name: str) -> Command:
    """The command `name` runs, importing its module."""
    from importlib import import_module

    entry = COMMANDS[name]
    target = getattr(import_module(entry.module), entry.attribute)
    command: Command
    if isinstance(target, typer.Typer):
        command = typer.main.get_group(target)
    else:
        single = typer.Typer(add_completion=False)
        single.command(name)(target)
        command = typer.main.get_command(single)
    command.name = name
    return command


class LazyCommands(CommandGroup):
    """A group whose commands are imported when one is resolved to run; listing them
    (the group's --help) shows each entry's summary without importing anything."""

    entries: ClassVar[dict[str, CommandEntry]] = COMMANDS

    def list_commands(self, ctx: Context) -> list[str]:
        return [*self.entries, *(n for n in super().list_commands(ctx) if n not in self.entries)]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if cmd_name in self.commands or cmd_name not in self.entries:
            return super().get_command(ctx, cmd_name)
        # a placeholder that carries the summary: listing must not import the command
        return TyperCommand(cmd_name, help=self.entries[cmd_name].summary)

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        if args and args[0] in self.entries and args[0] not in self.commands:
            self.add_command(load_command(args[0]), args[0])
        name = args[0] if args else None
        unknown = name is not None and name not in self.entries and name not in self.commands
        if unknown and name in evaluator_commands():  # `taurec view logs/`: the other program's
            ctx.fail(f"No such command {name!r}; did you mean 'evaluator {name}'?")
        return super().resolve_command(ctx, args)


def evaluator_commands() -> list[str]:
    """The `evaluator` commands, for the hint on a `taurec` command that is one of them
    (asked only for a name `taurec` does not have, so `taurec --help` stays instant)."""
    from typer._click import Context

    from taurec.evaluator.cli.main import app as evaluator_app

    group = typer.main.get_group(evaluator_app)
    return [n for n in group.list_commands(Context(group)) if n != "version"]


app = typer.Typer(
    name="taurec",
    cls=LazyCommands,
    help="taurec: a verifiable benchmark for agentic recommender systems.",
    no_args_is_help=True,
    add_completion=False,
)


add_version_option(app, "taurec")


def main() -> None:
    prepare(app)
    run_app(app, "taurec")


if __name__ == "__main__":
    main()
