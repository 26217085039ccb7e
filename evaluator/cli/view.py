"""`evaluator view`: serve the viewer on loopback (or write it as a bundle)."""

from __future__ import annotations

import contextlib
import webbrowser
from pathlib import Path

from rich.console import Console

from taurec.evaluator.cli.log_paths import NotLogs, check_log_paths
from taurec.evaluator.logs import Resolver
from taurec.evaluator.text import markup


def run_view(
    paths: list[Path],
    resolver: Resolver,
    port: int,
    open_browser: bool,
    bundle: Path | None,
    err: Console,
) -> int:
    """Serve until interrupted, or write the bundle; the exit code."""
    from taurec.evaluator.viewer.data import LogSet

    try:
        # a folder with no logs yet is fine: a run may be about to write them
        check_log_paths(paths, allow_empty=bundle is None)
    except NotLogs as exc:
        err.print(f"[red]error:[/red] {markup(exc)}")
        return 2
    logs = LogSet(paths, resolver)
    if bundle is not None:
        from taurec.evaluator.viewer.bundle import write_bundle

        if bundle.exists() and not bundle.is_dir():
            err.print(f"[red]error:[/red] --bundle {markup(bundle)}: not a folder")
            return 2
        n = write_bundle(logs, bundle)
        err.print(
            f"wrote {n} episodes to {markup(bundle)}; open {markup((bundle / 'index.html').resolve().as_uri())}"
        )
        return 0
    from taurec.evaluator.viewer.app import bind_loopback, serve

    try:
        sock = bind_loopback(port)
    except OSError as exc:
        err.print(
            f"[red]error:[/red] --port {port}: cannot listen on 127.0.0.1 ({markup(exc.strerror or exc)}); give another port, or 0 for any free one"
        )
        return 2
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    logs.refresh(force=True)
    print(url, flush=True)
    err.print(
        f"serving {len(logs.rows)} episodes from {markup(', '.join(map(str, paths)))} at {url} (Ctrl-C stops)"
    )

    def ready() -> None:
        if open_browser:
            webbrowser.open(url)

    with contextlib.suppress(KeyboardInterrupt):
        serve(logs, sock, ready)
    return 0
