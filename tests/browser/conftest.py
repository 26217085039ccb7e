"""A headless Chromium for the browser tests, or a skip that says what is missing.

CI installs Debian's `chromium` and `chromium-driver` packages (see `.ci/run`); on a
machine without them, every browser test skips with the reason. Screenshots go to
`TAUREC_SCREENSHOTS` (default: the test's tmp folder), so CI can keep them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_BROWSERS = ("chromium", "chromium-browser", "google-chrome")
_DRIVERS = ("chromedriver", "chromium-driver")


def _first_on_path(names: tuple[str, ...]) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture
def browser() -> Iterator[Any]:
    """A headless Chromium WebDriver that records the page's console."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    binary = _first_on_path(_BROWSERS)
    driver_path = _first_on_path(_DRIVERS)
    if binary is None or driver_path is None:
        pytest.skip(
            "no headless browser: install Debian's chromium and chromium-driver "
            "(apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.add_argument("--window-size=1400,1000")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=driver_path)
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    """Where the test saves its screenshots."""
    folder = Path(os.environ.get("TAUREC_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
