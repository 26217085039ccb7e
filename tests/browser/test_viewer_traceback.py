"""The traceback of an agent that raised, in the viewer's episode pane in a real browser: a
short one open, a long one folded to its last line; markup in it stays text; an episode
without one has no such section; the page logs no console error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from taurec.clients.agents.base import TRACEBACK_META_KEY, Episode
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.server.settings import ServerSettings
from tests.support.browser import console_errors, until
from tests.support.viewer import HOSTILE_TEXT, served

#: A long traceback whose frames carry markup (an agent's own text can hold anything).
LONG = "Traceback (most recent call last):\n" + f"  {HOSTILE_TEXT}\n" * 40 + "KeyError: 'the end'"


class Crasher:
    label = "crasher"

    async def run(self, episode: Episode) -> None:
        raise ValueError("short and <i>open</i>")


class LongReporter:
    label = "long"

    async def run(self, episode: Episode) -> None:
        arguments = {"reason": "agent_error", "detail": "gave up"}
        await episode.call_raw("abort_episode", arguments, {TRACEBACK_META_KEY: LONG})
        episode.ended = True


class Abstainer:
    label = "abstainer"

    async def run(self, episode: Episode) -> None:
        await episode.recommend(None)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("viewer-tracebacks") / "logs"
    for agent in (Crasher(), LongReporter(), Abstainer()):
        settings = ServerSettings(log_dir=out, run_label=agent.label)
        runner = Runner(agent, Connection("inproc", settings), out, agent.label)
        anyio.run(runner.run, plan(["t001"], 1))
    return out


def _wait(driver: Any, css: str) -> list[Any]:
    return until(driver, lambda d: d.find_elements("css selector", css) or False)


def _open(driver: Any, label: str) -> None:
    """The episode of `label` (by its link, whether or not the list is on screen)."""
    rows = _wait(driver, "#episodes tbody tr")
    key = next(
        r.get_attribute("data-key")
        for r in rows
        if r.find_element("css selector", "td[data-col=label]").get_attribute("textContent")
        == label
    )
    driver.execute_script("location.hash = '#/episode/' + arguments[0]", key)
    until(driver, lambda d: label in d.find_element("css selector", "#detail h2").text)


def _traceback_titled(driver: Any, title: str) -> Any:
    """The #traceback element once its summary reads `title`."""

    def found(d: Any) -> Any:
        for element in d.find_elements("css selector", "#traceback"):
            if element.find_element("css selector", "summary").text == title:
                return element
        return False

    return until(driver, found)


def test_the_episode_pane_shows_the_agents_traceback(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    with served([logs]) as url:
        browser.get(url)
        _open(browser, "crasher")
        short = _wait(browser, "#traceback")[0]
        assert short.get_attribute("open") is not None
        assert short.find_element("css selector", "summary").text == (
            "ValueError: short and <i>open</i>"
        )
        assert "raise ValueError(" in short.find_element("css selector", "pre").text
        browser.save_screenshot(str(screenshots / "traceback-short.png"))

        _open(browser, "long")
        # the pane is drawn anew: wait for the long traceback's own element (the short
        # one's may still be in the page for a moment, and goes stale when replaced)
        long = _traceback_titled(browser, "KeyError: 'the end' · 42 lines")
        assert long.get_attribute("open") is None  # folded
        long.find_element("css selector", "summary").click()
        assert long.find_element("css selector", "pre").text == LONG
        assert (
            browser.execute_script(
                "return document.querySelectorAll('#detail b, #detail i').length"
            )
            == 0
        )
        browser.save_screenshot(str(screenshots / "traceback-long.png"))

        _open(browser, "abstainer")
        assert browser.find_elements("css selector", "#traceback") == []
        # checked while the server runs: once it stops, the page's next poll fails
        assert console_errors(browser) == []
