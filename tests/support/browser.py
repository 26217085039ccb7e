"""Reading a headless browser's console in the browser tests."""

from __future__ import annotations

from typing import Any


def console_errors(driver: Any) -> list[str]:
    """The page's console entries at level SEVERE since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
