"""The browser fixture itself: a page's console errors are seen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.browser import console_errors


def test_a_console_error_on_a_page_is_reported(browser: Any, tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text("<html><body><script>console.error('boom')</script></body></html>")
    browser.get(page.as_uri())
    assert any("boom" in message for message in console_errors(browser))


def test_a_clean_page_has_no_console_errors(browser: Any, tmp_path: Path) -> None:
    page = tmp_path / "clean.html"
    page.write_text("<html><body><p id='x'>fine</p></body></html>")
    browser.get(page.as_uri())
    assert browser.find_element("id", "x").text == "fine"
    assert console_errors(browser) == []
