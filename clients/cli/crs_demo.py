"""`taurec crs-demo`: serve the reference CRS (taurec.clients.agents.contestants.crs_demo) over the iEvaLM protocol."""

from __future__ import annotations

from typing import Annotated

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
    from rich.console import Console

    from taurec.catalog.errors import DataError
    from taurec.clients.agents.contestants.crs_demo import DemoCrs, crs_app
    from taurec.tasks.suite import load_suite

    try:
        catalog = load_suite(suite).catalog
    except DataError as exc:
        Console(stderr=True).print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    uvicorn.run(crs_app(DemoCrs(catalog)), host=host, port=port, log_level="warning")
