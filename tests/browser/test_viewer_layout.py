"""The viewer as a new reader meets it, in a real browser at 1,000 and 1,400 px (one pane
at a time) and 1,800 px (side by side): no column cut off, runs told apart by model,
suite, start and folder, a search over messages and verdicts, a stream read as its
learning curve rather than pass/fail, and ranking metrics in cutoff order."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.report_runs import ranking_run, stream_run

from taurec.clients.agents.recommendation.baselines import RandomAgent
from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer.data import LogSet
from taurec.server.settings import ServerSettings
from tests.support.browser import console_errors, until
from tests.support.viewer import HOSTILE_LABEL, hostile_copy, served

MODEL = "acme/recommender-1"
#: The episodes the fixture writes: 3 + 3 dialogues, 1 open-mode copy, 8 rankings, 4 streams.
ROWS = 19
RANKING_ORDER = ["hit@1", "hit@5", "ndcg@5", "hit@10", "ndcg@10"]


class ModelledRandom(RandomAgent):
    """The random agent, reporting a model for the log header as an LLM agent does."""

    @property
    def agent_info(self) -> dict[str, Any]:
        return {"kind": "random", "model": MODEL, "settings": {}}


async def _run(agent: object, label: str, out: Path) -> None:
    settings = ServerSettings(log_dir=out, run_label=label)
    runner = Runner(agent, Connection("inproc", settings), out, label, handle_signals=False)
    await runner.run(plan(["t001", "t002", "t003"], 1))


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every kind: scripted (passes) and a model-reporting random agent (fails) on
    dialogues, the popularity ranker, and the learner on two streams; and one open-mode
    copy whose first message carries markup (a word to search for)."""
    out = tmp_path_factory.mktemp("viewer-layout") / "logs"
    asyncio.run(_run(ScriptedAgent(), "scripted", out / "scripted"))
    asyncio.run(_run(ModelledRandom(seed=1), "random", out / "random"))
    ranking_run(out / "ranking")
    stream_run(out / "stream")
    hostile_copy(out / "random")
    return out


def _wait(driver: Any, condition: Any) -> Any:
    return until(driver, condition)  # the list is drawn anew: a stale element is read again


def _rows(driver: Any, count: int = 1) -> list[Any]:
    return _wait(
        driver,
        lambda d: len(r := d.find_elements("css selector", "#episodes tbody tr")) >= count and r,
    )


#: Elements (by CSS) cut off: not wholly inside the viewport and inside the visible box of
#: every ancestor that clips or scrolls (a column reached only by scrolling sideways is cut).
CLIPPED = """
const out = [];
const vw = document.documentElement.clientWidth;
for (const node of document.querySelectorAll(arguments[0])) {
  const r = node.getBoundingClientRect();
  if (!r.width) continue;
  let left = 0, right = vw;
  for (let a = node.parentElement; a; a = a.parentElement) {
    if (getComputedStyle(a).overflowX === "visible") continue;
    const box = a.getBoundingClientRect();
    left = Math.max(left, box.left + a.clientLeft);
    right = Math.min(right, box.left + a.clientLeft + a.clientWidth);
  }
  if (r.left < left - 1 || r.right > right + 1) out.push(node.tagName + " " + node.textContent.slice(0, 40));
}
return out;
"""
COLUMNS = "#runs th, #runs td, #episodes th, #episodes td"


@pytest.mark.parametrize("width", [1000, 1400, 1800])
def test_no_column_is_cut_off_and_why_it_failed_is_whole(
    browser: Any, logs: Path, screenshots: Path, width: int
) -> None:
    browser.set_window_size(width, 900)
    with served([logs]) as url:
        browser.get(url)
        rows = _rows(browser, ROWS)
        assert browser.execute_script(CLIPPED, COLUMNS) == []
        browser.save_screenshot(str(screenshots / f"layout-{width}-list.png"))
        failed = next(r for r in rows if "constraint" in r.text)
        failed.click()
        _wait(browser, lambda d: d.find_elements("css selector", "#reasons li"))
        assert browser.execute_script(CLIPPED, "#reasons li, #detail h2, #detail table th") == []
        if width < 1800:  # one pane at a time: the list gives way, and comes back
            assert not browser.find_element("id", "list-pane").is_displayed()
            browser.find_element("id", "back").click()
            _wait(browser, lambda d: d.find_element("id", "list-pane").is_displayed())
            assert browser.execute_script(CLIPPED, COLUMNS) == []
        else:  # side by side: the list stays
            assert browser.find_element("id", "list-pane").is_displayed()
        browser.save_screenshot(str(screenshots / f"layout-{width}-episode.png"))
        assert console_errors(browser) == []


def _run_cells(driver: Any) -> dict[str, Any]:
    """The runs table's rows, by label."""
    cells = driver.find_elements("css selector", "#runs tbody tr")
    return {c.find_element("css selector", ".run-label").text: c for c in cells}


def test_each_run_is_told_apart_by_model_suite_start_and_folder(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    with served([logs]) as url:
        browser.get(url)
        _rows(browser, ROWS)
        runs = _run_cells(browser)
        random = runs["random"].find_element("css selector", "[data-col=run]").text
        assert f"model {MODEL}" in random and "suite builtin" in random and "started 20" in random
        assert f"{logs}/random/" in random and "open mode (no run plan)" in random
        scripted = runs["scripted"].find_element("css selector", "[data-col=run]").text
        assert "model not reported" in scripted and f"{logs}/scripted/" in scripted
        popularity = runs["popularity"].text
        assert "suite ranking" in popularity and f"{logs}/ranking/" in popularity
        assert "sealed run " in popularity
        browser.save_screenshot(str(screenshots / "runs-identity.png"))
        assert console_errors(browser) == []


def _search(driver: Any, text: str) -> None:
    box = driver.find_element("id", "search")
    box.clear()
    box.send_keys(text)


def _column(driver: Any, name: str) -> list[str]:
    """The texts of one column of the episode list, read at one moment."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((c) => c.textContent)",
        f"#episodes tbody td[data-col={name}]",
    )


def test_search_finds_episodes_by_a_word_of_their_messages_or_verdicts(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    with served([logs]) as url:
        browser.get(url)
        _rows(browser, ROWS)
        _search(browser, "text-injected")  # only in one episode's first message
        _wait(browser, lambda d: _column(d, "label") == [HOSTILE_LABEL])
        _search(browser, '"positive is not in the submitted list"')  # a ranking verdict
        _wait(browser, lambda d: set(_column(d, "label")) == {"popularity"})
        assert set(_column(browser, "result")) == {"fail"}
        _search(browser, "no-such-word-anywhere")
        _wait(browser, lambda d: d.find_element("id", "empty").is_displayed())
        browser.save_screenshot(str(screenshots / "search.png"))
        assert console_errors(browser) == []


def _regrets(logs: Path) -> list[list[float]]:
    """Each stream's regret by episode, as the scorer computed it."""
    view = LogSet([logs], Resolver())
    view.refresh(force=True)
    streams = [r["metrics"] for r in view.rows if r["kind"] == "stream"]
    return [[m[f"regret@{k}"] for k in range(1, 11)] for m in streams]


def test_a_stream_is_read_as_its_learning_curve_not_pass_or_fail(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    regrets = np.array(_regrets(logs))
    mean_curve = regrets.mean(axis=0)
    slope = np.polyfit(np.arange(1, 11), mean_curve, 1)[0]
    with served([logs]) as url:
        browser.get(url)
        rows = _rows(browser, ROWS)
        learner = _run_cells(browser)["learner"]
        result = learner.find_element("css selector", "[data-col=result]").text
        shown = re.fullmatch(r"avg regret (\S+) · slope (\S+) / episode", result)
        assert shown is not None, result
        assert float(shown[1]) == pytest.approx(regrets.mean(), abs=0.006)
        assert float(shown[2]) == pytest.approx(slope, abs=0.006)
        assert "%" not in result and learner.find_elements("css selector", "svg polyline")
        assert learner.find_element("css selector", "[data-col=failed]").text == "–"
        streams = [r for r in rows if r.text.startswith("learner")]
        assert len(streams) == len(regrets)
        assert all(s.find_elements("css selector", "[data-col=result] svg") for s in streams)
        assert not any("fail" in s.text.split() for s in streams)
        streams[0].click()
        verdict = _wait(browser, lambda d: d.find_element("id", "verdict"))
        assert verdict.text.startswith("STREAM · avg regret")
        points = browser.find_elements("css selector", "#stream-curve svg circle")
        assert len(points) == 10
        browser.save_screenshot(str(screenshots / "stream-curve.png"))
        browser.find_element("css selector", "#stream-curve svg a").click()
        _wait(browser, lambda d: d.find_elements("css selector", ".highlight"))
        assert console_errors(browser) == []


def test_ranking_metrics_are_listed_in_cutoff_order(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    with served([logs]) as url:
        browser.get(url)
        rows = _rows(browser, ROWS)
        next(r for r in rows if r.text.startswith("popularity")).click()
        table = _wait(browser, lambda d: d.find_elements("css selector", "#detail table.verdicts"))
        names = [c.text for t in table for c in t.find_elements("css selector", "td:first-child")]
        assert [n for n in names if n in RANKING_ORDER] == RANKING_ORDER
        browser.save_screenshot(str(screenshots / "ranking-metrics.png"))
        assert console_errors(browser) == []
