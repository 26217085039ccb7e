"""Reading a headless browser's console in the browser tests."""

from __future__ import annotations

from typing import Any


def console_errors(driver: Any) -> list[str]:
    """The page's console entries at level SEVERE since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def until(driver: Any, condition: Any) -> Any:
    """`WebDriverWait(...).until(condition)` up to the hang guard, reading again an element
    that went stale meanwhile (the viewer draws its panes anew as data arrives)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    from support.hang_guard import HANG_GUARD_S

    wait = WebDriverWait(driver, HANG_GUARD_S, ignored_exceptions=[StaleElementReferenceException])
    return wait.until(condition)
