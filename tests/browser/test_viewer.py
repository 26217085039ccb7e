"""The episode viewer in a real browser: served on loopback and as a static bundle, a
reader filters to the failed episodes, opens one and reads why it failed; text from the
logs stays text; the page logs no console error."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from support.hang_guard import HANG_GUARD_S

from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer.bundle import write_bundle
from taurec.evaluator.viewer.data import LogSet
from tests.support.browser import console_errors
from tests.support.viewer import HOSTILE_LABEL, HOSTILE_TEXT, hostile_copy, make_run, served

#: Seconds to wait for the page: long enough for a loaded machine, short of a hang.
WAIT_S = HANG_GUARD_S


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("viewer-run") / "logs"
    make_run(out)
    return out


@pytest.fixture
def logs(run_dir: Path, tmp_path: Path) -> Path:
    """A private copy of the run (a test may add logs to it)."""
    copy = tmp_path / "logs"
    shutil.copytree(run_dir, copy)
    return copy


def _wait(driver: Any, css: str, count: int = 1) -> list[Any]:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT_S).until(
        lambda d: (found := d.find_elements("css selector", css)) and len(found) >= count and found
    )


def _texts(driver: Any, css: str) -> list[str]:
    return [e.text for e in driver.find_elements("css selector", css)]


def _read_a_failed_episode(driver: Any, screenshots: Path, name: str) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    _wait(driver, "#episodes tbody tr", 6)
    Select(driver.find_element("id", "filter-label")).select_by_visible_text("random")
    Select(driver.find_element("id", "filter-result")).select_by_visible_text("fail")
    results = _texts(driver, "#episodes tbody td[data-col=result]")
    assert results == ["fail"] * 3
    assert set(_texts(driver, "#episodes tbody td[data-col=label]")) == {"random"}
    driver.save_screenshot(str(screenshots / f"{name}-failed-list.png"))

    driver.find_element("css selector", "#episodes tbody tr").click()
    verdict = _wait(driver, "#verdict")[0]
    assert verdict.text == "FAIL"
    reasons = _texts(driver, "#reasons li")
    assert reasons and any("constraint not met" in r or "violated" in r for r in reasons)
    assert _wait(driver, "#conversation .msg.user")[0].text.strip()
    assert driver.find_elements("css selector", "#conversation details.tool")
    driver.save_screenshot(str(screenshots / f"{name}-episode.png"))

    evidence = driver.find_element("css selector", "#reasons a.seq")
    seq = evidence.text.removeprefix("seq ")
    evidence.click()
    WebDriverWait(driver, WAIT_S).until(lambda d: d.find_elements("css selector", ".highlight"))
    (marked,) = driver.find_elements("css selector", ".highlight")
    assert marked.get_attribute("id") == f"ev-{seq}" or marked.find_elements(
        "css selector", f"#ev-{seq}"
    )
    driver.save_screenshot(str(screenshots / f"{name}-evidence.png"))


def test_served_viewer_shows_why_a_failed_episode_failed(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    with served([logs]) as url:
        browser.get(url)
        _read_a_failed_episode(browser, screenshots, "served")
        # checked while the server runs: once it stops, the page's next poll fails
        assert console_errors(browser) == []


def test_clicking_a_column_title_sorts_by_it_and_again_reverses(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    with served([logs]) as url:
        browser.get(url)
        _wait(browser, "#episodes tbody tr", 6)
        browser.find_element("css selector", "#episodes th[data-col=task]").click()
        tasks = _texts(browser, "#episodes tbody td[data-col=task]")
        assert tasks == sorted(tasks) and tasks != sorted(tasks, reverse=True)
        browser.find_element("css selector", "#episodes th[data-col=task]").click()
        assert _texts(browser, "#episodes tbody td[data-col=task]") == sorted(tasks, reverse=True)
        browser.save_screenshot(str(screenshots / "served-sorted.png"))
        # checked while the server runs: once it stops, the page's next poll fails
        assert console_errors(browser) == []


def test_served_viewer_shows_new_episodes_without_a_reload(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    with served([logs]) as url:
        browser.get(url)
        _wait(browser, "#episodes tbody tr", 6)
        browser.execute_script("window.notReloaded = true")
        hostile_copy(logs, "late")
        _wait(browser, "#episodes tbody tr", 7)
        assert browser.execute_script("return window.notReloaded") is True
        browser.save_screenshot(str(screenshots / "served-live.png"))
        # checked while the server runs: once it stops, the page's next poll fails
        assert console_errors(browser) == []


def test_bundle_opened_from_a_file_shows_why_a_failed_episode_failed(
    browser: Any, logs: Path, tmp_path: Path, screenshots: Path
) -> None:
    site = tmp_path / "site"
    write_bundle(LogSet([logs], Resolver()), site)
    browser.get((site / "index.html").as_uri())
    assert _wait(browser, "#status")[0].text.startswith("static bundle")
    _read_a_failed_episode(browser, screenshots, "bundle")
    assert console_errors(browser) == []


def test_text_from_logs_is_shown_as_text_never_run(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    from selenium.webdriver.support.ui import Select

    hostile_copy(logs)
    with served([logs]) as url:
        browser.get(url)
        _wait(browser, "#episodes tbody tr", 7)
        Select(browser.find_element("id", "filter-label")).select_by_visible_text(HOSTILE_LABEL)
        (label,) = _texts(browser, "#episodes tbody td[data-col=label]")
        assert label == HOSTILE_LABEL
        browser.find_element("css selector", "#episodes tbody tr").click()
        first = _wait(browser, "#conversation .msg.user .text")[0]
        assert first.text == HOSTILE_TEXT
        assert browser.execute_script("return document.querySelectorAll('img, b, i').length") == 0
        browser.save_screenshot(str(screenshots / "served-hostile.png"))
        # checked while the server runs: once it stops, the page's next poll fails
        assert console_errors(browser) == []


def test_the_users_acts_are_shown_beside_the_message(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    from taurec.tasks.trajectory.records import UserMessageRecord

    if "acts" not in UserMessageRecord.__annotations__:
        pytest.skip("this build's log format has no dialogue acts (contract A) to show")
    hostile_copy(logs)
    with served([logs]) as url:
        browser.get(url)
        _wait(browser, "#episodes tbody tr", 7)
        rows = browser.find_elements("css selector", "#episodes tbody tr")
        next(r for r in rows if HOSTILE_LABEL in r.text).click()
        act = _wait(browser, "#conversation .msg.user .act")[0]
        assert "disclose" in act.text and "<i>Western</i>" in act.text
        browser.save_screenshot(str(screenshots / "served-acts.png"))
        # checked while the server runs: once it stops, the page's next poll fails
        assert console_errors(browser) == []
