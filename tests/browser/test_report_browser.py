"""The HTML report in headless Chromium, opened from file:// with no network: every plot
renders (plotly draws an svg in each plot's div), the page logs no console error, and the
section links work. Screenshots go to the `screenshots` folder."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.hang_guard import HANG_GUARD_S
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from tests.support.browser import console_errors
from tests.support.report_runs import ranking_run, recommendation_run, stream_run


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report")
    logs = [
        recommendation_run(root / "recommendation"),
        ranking_run(root / "ranking"),
        stream_run(root / "stream"),
    ]
    out = root / "report.html"
    result = CliRunner().invoke(app, ["report", *map(str, logs), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _wait(condition: Callable[[], bool], seconds: float = HANG_GUARD_S) -> None:
    """Poll until `condition` holds; fail after `seconds` (a hang, not a speed check)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the page"
        time.sleep(0.1)


def _rendered(driver: Any) -> tuple[int, int]:
    """(plot divs, plot divs that hold an svg)."""
    counts = driver.execute_script(
        "const divs = [...document.querySelectorAll('.plotly-graph-div')];"
        "return [divs.length, divs.filter(d => d.querySelector('svg.main-svg')).length];"
    )
    return int(counts[0]), int(counts[1])


def test_every_plot_renders_offline_without_console_errors(
    browser: Any, report: Path, screenshots: Path
) -> None:
    browser.get(report.as_uri())
    _wait(lambda: _rendered(browser)[0] == _rendered(browser)[1] > 0)
    divs, drawn = _rendered(browser)
    assert divs == drawn and divs >= 7
    assert console_errors(browser) == []
    browser.save_screenshot(str(screenshots / "report-top.png"))


def _misfitted(driver: Any) -> list[str]:
    """Plots drawn wider or narrower than their box once the page has loaded."""
    return list(
        driver.execute_script(
            "if (document.readyState !== 'complete') return ['page still loading'];"
            "return [...document.querySelectorAll('.plotly-graph-div')]"
            ".filter(d => Math.abs(d._fullLayout.width - d.getBoundingClientRect().width) > 2)"
            ".map(d => d.id + ': drawn ' + d._fullLayout.width + ', box '"
            " + d.getBoundingClientRect().width);"
        )
    )


def test_plots_sharing_a_row_are_each_drawn_to_their_own_width(browser: Any, report: Path) -> None:
    browser.set_window_size(1400, 1000)
    browser.get(report.as_uri())
    _wait(lambda: _rendered(browser)[0] == _rendered(browser)[1] > 0)
    _wait(lambda: not _misfitted(browser))
    assert _misfitted(browser) == []


def test_a_section_link_scrolls_to_its_plots(browser: Any, report: Path, screenshots: Path) -> None:
    browser.get(report.as_uri())
    _wait(lambda: _rendered(browser)[0] == _rendered(browser)[1] > 0)
    browser.find_element("css selector", 'nav a[href="#streams"]').click()
    _wait(lambda: browser.execute_script("return window.scrollY") > 0)
    section = browser.find_element("id", "streams")
    assert section.find_element("css selector", ".plotly-graph-div svg.main-svg")
    assert browser.execute_script("return location.hash") == "#streams"
    assert console_errors(browser) == []
    browser.save_screenshot(str(screenshots / "report-streams.png"))


def _score(label: str, task: str, reward: float) -> Any:
    from taurec.evaluator.episode import EpisodeScore

    return EpisodeScore(
        path=f"{task}.jsonl",
        label=label,
        task_id=task,
        trial=0,
        end_reason="recommended",
        outcome="item",
        item_id="i1",
        reward=reward,
        complexity="simple",
        reveal="volunteer",
        episode_id=task,
    )


def test_a_label_with_markup_shows_as_plain_text_in_the_plots(browser: Any, tmp_path: Path) -> None:
    from taurec.evaluator.aggregate import aggregate
    from taurec.evaluator.report.build import render_report

    label = '<b>bold</b> & "quoted"'
    scores = [_score(label, "t1", 1.0), _score(label, "t2", 0.0), _score("plain", "t1", 1.0)]
    page = tmp_path / "report.html"
    page.write_text(render_report(aggregate(scores), scores, {}, title="t", sources=["s"]))
    browser.get(page.as_uri())
    _wait(lambda: _rendered(browser)[0] == _rendered(browser)[1] > 0)
    legends = browser.execute_script(
        "return [...document.querySelectorAll('.legendtext')].map(e => e.textContent)"
    )
    assert label in legends
    assert browser.execute_script("return document.querySelectorAll('svg b').length") == 0
    assert console_errors(browser) == []


# A cell is clipped when it lies outside the window and no visible scrolling box of its
# own brings it into view; the page itself must never scroll sideways.
_CLIPPED = """
const vw = document.documentElement.clientWidth;
const inside = (r) => r.left >= -1 && r.right <= vw + 1;
function scroller(el) {
  for (let p = el.parentElement; p; p = p.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(p).overflowX)) return p;
  }
  return null;
}
const out = [];
if (document.documentElement.scrollWidth > vw + 1) out.push('the page scrolls sideways');
document.querySelectorAll('table th, table td').forEach((c) => {
  const r = c.getBoundingClientRect();
  if (inside(r)) return;
  const box = scroller(c);
  const b = box && box.getBoundingClientRect();
  if (b && b.width > 0 && b.height > 0 && inside(b)) return;
  const caption = c.closest('table').querySelector('caption').textContent;
  out.push(caption + ': ' + c.textContent.slice(0, 40));
});
return out;
"""

# The most lines of text in any cell of a table (a squeezed column wraps every word).
_LINES = """
const lines = (c) => {
  const range = document.createRange();
  range.selectNodeContents(c);
  return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
};
const out = {};
document.querySelectorAll('table').forEach((t) => {
  const caption = t.querySelector('caption').textContent;
  out[caption] = Math.max(0, ...[...t.querySelectorAll('th, td')].map(lines));
});
return out;
"""


@pytest.mark.parametrize("width", [1000, 1400])
def test_no_table_column_is_clipped_or_squeezed(
    browser: Any, report: Path, screenshots: Path, width: int
) -> None:
    browser.set_window_size(width, 1000)
    browser.get(report.as_uri())
    _wait(lambda: _rendered(browser)[0] == _rendered(browser)[1] > 0)
    assert browser.execute_script(_CLIPPED) == []
    lines = browser.execute_script(_LINES)
    # log paths may wrap; every other cell holds at most three lines, headers included
    squeezed = {t: n for t, n in lines.items() if n > 3 and t != "Failed episodes"}
    assert "Learning summary" in lines and squeezed == {}
    browser.find_element("css selector", 'nav a[href="#streams"]').click()
    browser.save_screenshot(str(screenshots / f"report-streams-{width}.png"))


def test_a_rate_hover_names_the_series_in_full_and_shows_a_percentage(
    browser: Any, report: Path
) -> None:
    browser.get(report.as_uri())
    _wait(lambda: _rendered(browser)[0] == _rendered(browser)[1] > 0)
    shown = browser.execute_script(
        "const div = document.querySelector('#reliability .plotly-graph-div');"
        "Plotly.Fx.hover(div, [{curveNumber: 0, pointNumber: 0}]);"
        "return [div.data[0].meta,"
        " [...div.querySelectorAll('.hoverlayer text')].map(t => t.textContent).join(' ')];"
    )
    name, hover = shown
    assert name and name in hover
    assert re.search(r"pass\^1: \d+\.\d%", hover), hover
    assert console_errors(browser) == []
