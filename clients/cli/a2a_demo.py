"""`taurec a2a-demo`: serve the reference A2A agent (taurec.clients.agents.contestants.a2a_demo)."""

from __future__ import annotations

from typing import Annotated

import typer


def a2a_demo(
    port: Annotated[
        int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")
    ] = 9999,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
) -> None:
    """Serve a reference A2A agent (the scripted policy over the MCP URL it is handed) for
    `taurec run --agent a2a`. Needs the a2a extra."""
    try:
        import uvicorn

        from taurec.clients.agents.contestants.a2a_demo import a2a_app
    except ImportError as exc:
        from rich.console import Console

        Console(stderr=True).print(
            f"[red]error:[/red] the a2a extra is not installed (pip install 'taurec[a2a]'): {exc}"
        )
        raise typer.Exit(2) from None
    uvicorn.run(a2a_app(f"http://{host}:{port}"), host=host, port=port, log_level="warning")
