"""`taurec mock-llm`: serve the OpenAI-compatible stand-in model
(taurec.clients.frameworks.mock_llm) on loopback, for trying frameworks offline.

It says where it listens in one line on stderr once it does; a port in use is one line
and exit code 2, as `taurec serve` does."""

from __future__ import annotations

from typing import Annotated

import typer


def mock_llm(
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free one).")
    ] = 8001,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
) -> None:
    """Serve an OpenAI-compatible stand-in model (taurec's scripted policy), for trying frameworks offline.

    Models: scripted (the kind the request's tools show), scripted-ranking,
    scripted-recommendation, scripted-stream, malformed; any key is taken."""
    import uvicorn

    from taurec.clients.cli.startup import port_problem
    from taurec.clients.frameworks.mock_llm import MODELS, chat_app
    from taurec.server.listening import ListeningServer, serve_until_stopped

    if (why := port_problem(host, port)) is not None:
        typer.echo(f"error: {why}", err=True)
        raise typer.Exit(2)

    def listening(url: str) -> None:
        typer.echo(
            f"mock-llm listening on {url}/v1 (models: {', '.join(MODELS)}); point an "
            f"OpenAI client at base_url={url}/v1 with any key (Ctrl-C to stop)",
            err=True,
        )

    config = uvicorn.Config(chat_app(), host=host, port=port, log_level="warning")
    if not serve_until_stopped(ListeningServer(config, listening)):
        raise typer.Exit(1)
