"""`taurec a2a-demo`: serve the reference A2A agent (taurec.clients.agents.contestants.a2a_demo).

It says where it listens in one line on stderr once it does; a port in use is one line
and exit code 2, as `taurec serve` does."""

from __future__ import annotations

from typing import Annotated, NoReturn

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
        _fail(f"the a2a extra is not installed (pip install 'taurec[a2a]'): {exc}")
    from taurec.clients.cli.startup import port_problem
    from taurec.server.listening import ListeningServer, serve_until_stopped

    if (why := port_problem(host, port)) is not None:
        _fail(why)

    def listening(url: str) -> None:
        typer.echo(
            f"a2a-demo listening on {url}; play it with: taurec run --agent a2a --a2a-url "
            f"{url} (Ctrl-C to stop)",
            err=True,
        )

    url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    config = uvicorn.Config(a2a_app(url), host=host, port=port, log_level="warning")
    if not serve_until_stopped(ListeningServer(config, listening)):
        raise typer.Exit(1)


def _fail(message: object) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)
