"""`taurec crs-demo`: serve the reference CRS (taurec.clients.agents.contestants.crs_demo) over the iEvaLM protocol.

It says where it listens in one line on stderr once it does; a port in use or a bad suite
is one line and exit code 2, as `taurec serve` does."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer


def crs_demo(
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port to listen on.")
    ] = 5005,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    suite: Annotated[
        str, typer.Option("--suite", help="The suite whose catalog it recommends from.")
    ] = "builtin",
) -> None:
    """Serve a small rule-based CRS (iEvaLM / CRS Arena protocol, GET/POST /) for `taurec run --agent crs`."""
    import uvicorn

    from taurec.catalog.errors import DataError
    from taurec.clients.agents.contestants.crs_demo import DemoCrs, crs_app
    from taurec.clients.cli.startup import port_problem
    from taurec.server.listening import ListeningServer, serve_until_stopped
    from taurec.tasks.suite import load_suite

    if (why := port_problem(host, port)) is not None:
        _fail(why)
    try:
        catalog = load_suite(suite).catalog
    except DataError as exc:
        _fail(exc)

    def listening(url: str) -> None:
        typer.echo(
            f"crs-demo (suite {suite}) listening on {url}/; play it with: "
            f"taurec run --agent crs --crs-url {url}/ (Ctrl-C to stop)",
            err=True,
        )

    config = uvicorn.Config(crs_app(DemoCrs(catalog)), host=host, port=port, log_level="warning")
    if not serve_until_stopped(ListeningServer(config, listening)):
        raise typer.Exit(1)


def _fail(message: object) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)
