"""The `taurec` command: serve, run, play, tasks, catalog, plan, crs-demo, a2a-demo."""

from __future__ import annotations

import typer

from .a2a_demo_cli import a2a_demo
from .catalog_cli import app as catalog_app
from .crs_demo_cli import crs_demo
from .plan_cli import app as plan_app
from .play_cli import play
from .run_cli import run
from .serve_cli import serve
from .startup import prepare
from .tasks_cli import app as tasks_app

app = typer.Typer(
    name="taurec",
    help="taurec: a verifiable benchmark for agentic recommender systems.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(tasks_app, name="tasks")
app.add_typer(catalog_app, name="catalog")
app.add_typer(plan_app, name="plan")
app.command("serve")(serve)
app.command("run")(run)
app.command("play")(play)
app.command("crs-demo")(crs_demo)
app.command("a2a-demo")(a2a_demo)


def main() -> None:
    prepare(app)
    app()


if __name__ == "__main__":
    main()
