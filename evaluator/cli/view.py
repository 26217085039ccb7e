"""`evaluator view`: serve the viewer on loopback (or write it as a bundle)."""

from __future__ import annotations

import contextlib
import html
import tempfile
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from taurec.evaluator.cli.log_paths import NotLogs, check_log_paths
from taurec.evaluator.logs import Resolver
from taurec.evaluator.text import markup

#: The folder viewed when none is named: where `taurec run` writes its logs by default.
DEFAULT_LOGS = Path("logs")


def run_view(
    paths: list[Path],
    resolver: Resolver,
    port: int,
    open_browser: bool,
    bundle: Path | None,
    err: Console,
    *,
    show_hidden: bool = False,
    labels: Sequence[str] = (),
) -> int:
    """Serve until interrupted, or write the bundle; the exit code. `show_hidden`: show
    the answer key of tasks still being played (see viewer/answers.py). `labels`: only
    the agent labels matching one of these patterns; a pattern that matches none of the
    labels there is an error. No `paths`: `logs/`. Folders holding no episode are one
    line and exit 2, before any server starts."""
    from taurec.evaluator.labels import LabelFilter, no_match_message
    from taurec.evaluator.viewer.data import LogSet

    if not paths and not DEFAULT_LOGS.is_dir():
        err.print(
            f"[red]error:[/red] {DEFAULT_LOGS}/: no such folder (viewed when no LOGDIR is "
            "given); name the folder `taurec run --log-dir` wrote: evaluator view LOGDIR"
        )
        return 2
    paths = list(paths) or [DEFAULT_LOGS]
    try:
        # a sealed run's folder may hold its register and no log yet: checked below
        check_log_paths(paths, allow_empty=True)
    except NotLogs as exc:
        err.print(f"[red]error:[/red] {markup(exc)}")
        return 2
    if bundle is not None and bundle.exists() and not bundle.is_dir():
        err.print(f"[red]error:[/red] --bundle {markup(bundle)}: not a folder")
        return 2
    logs = LogSet(paths, resolver, show_hidden=show_hidden, labels=LabelFilter(tuple(labels)))
    logs.refresh(force=True)
    found = logs.labels_found
    if not found:  # not one episode (a stray .jsonl of another program is none)
        err.print(
            f"[red]error:[/red] {markup(', '.join(map(str, paths)))}: no taurec episode log "
            "under it; expected the folder `taurec run --log-dir` wrote (*.jsonl episode logs)"
        )
        return 2
    if missing := logs.labels.unmatched(found):
        err.print(f"[red]error:[/red] {markup(no_match_message(missing[0], found))}")
        return 2
    if bundle is not None:
        from taurec.evaluator.viewer.bundle import write_bundle

        n = write_bundle(logs, bundle)
        err.print(
            f"wrote {n} episodes to {markup(bundle)}; open {markup((bundle / 'index.html').resolve().as_uri())}"
        )
        return 0
    from taurec.evaluator.viewer.access import new_token, tokened_url
    from taurec.evaluator.viewer.app import bind_loopback, serve

    try:
        sock = bind_loopback(port)
    except OSError as exc:
        err.print(
            f"[red]error:[/red] --port {port}: cannot listen on 127.0.0.1 ({markup(exc.strerror or exc)}); give another port, or 0 for any free one"
        )
        return 2
    token = new_token()
    url = tokened_url(f"http://127.0.0.1:{sock.getsockname()[1]}/", token)
    print(url, flush=True)
    err.print(
        f"serving {len(logs.rows)} episodes from {markup(', '.join(map(str, paths)))} at {url} (Ctrl-C stops)"
    )

    with tempfile.TemporaryDirectory(prefix="taurec-view-") as private:

        def ready() -> None:
            if open_browser:
                webbrowser.open(redirect_page(Path(private), url).as_uri())

        with contextlib.suppress(KeyboardInterrupt):
            serve(logs, token, sock, ready)
    return 0


def redirect_page(folder: Path, url: str) -> Path:
    """A page in `folder` (private: mkdtemp makes it 0700) that sends the browser on to
    `url`. The browser is opened on it rather than on `url`, whose token would show in
    the process list to every user (Jupyter does the same)."""
    page = folder / "open.html"
    target = html.escape(url, quote=True)
    page.write_text(
        f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={target}">'
        f'<a href="{target}">open the viewer</a>\n'
    )
    page.chmod(0o600)
    return page
