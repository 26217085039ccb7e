"""The report reads as well as the terminal: rates as percentages (in tables, hovers and
ticks), long labels shortened with the full text kept, one distinct colour per series in
every plot, no plot of a single point, and readable stream summaries."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from support.report_page import ReportPage
from typer.testing import CliRunner

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.cli.main import app
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.report.build import render_report
from taurec.evaluator.report.data import Series
from taurec.evaluator.report.plots import palette
from taurec.evaluator.report.streams import summary_rows
from taurec.evaluator.text import percent

runner = CliRunner()
#: a rate, or a rate with its 95% CI, as the terminal shows them
PERCENT_CELL = re.compile(r"^(\d+\.\d%( \[\d+\.\d%, \d+\.\d%\])?|–)$")
#: the columns holding rates, by table
RATE_COLUMNS = {
    "Runs scored": ("pass^1 [95% CI]",),
    "pass^k by k": ("pass^k", "CI low", "CI high"),
    "Cost and pass^1": ("pass^1",),
    "pass^1 by stratum": ("pass^1",),
    "Policy violations": ("rate",),
    "Failure modes": ("false abstention", "wrong commit"),
    "Fault rate by simulator": ("rate",),
    "Regret by episode": ("top-1",),
}


def _score(label: str, task: str, reward: float, **fields: Any) -> EpisodeScore:
    return EpisodeScore(
        path=f"{label}-{task}.jsonl",
        label=label,
        task_id=task,
        trial=0,
        end_reason="recommended",
        outcome="item",
        item_id="i1",
        reward=reward,
        constraint_score=reward,
        policy_score=1.0,
        complexity="simple",
        reveal=fields.pop("reveal", "volunteer"),
        episode_id=f"{label}-{task}",
        **fields,
    )


def _page(scores: list[EpisodeScore]) -> tuple[str, ReportPage]:
    source = render_report(aggregate(scores), scores, {}, title="t", sources=["s"])
    return source, ReportPage(source)


def test_percent_is_the_terminals_format():
    assert percent(0.016666) == "1.7%"
    assert percent(1.0) == "100.0%"
    assert percent(None) == percent(math.nan) == "-"


def test_rates_in_the_tables_are_percentages_never_raw_fractions():
    scores = [
        _score("a", "t1", 1.0, reveal="volunteer"),
        _score("a", "t2", 0.0, reveal="hidden"),
        _score("a", "t3", 0.0, reveal="hidden"),
        _score("b", "t1", 1.0, reveal="volunteer"),
        _score("b", "t2", 1.0, reveal="hidden"),
    ]
    for s in scores:
        s.prompt_tokens = 7
    _, page = _page(scores)
    checked = 0
    for caption, headers in RATE_COLUMNS.items():
        for header in headers if caption in page.tables else ():
            cells = page.tables[caption].column(header)
            assert cells and all(PERCENT_CELL.match(c) for c in cells), (caption, header, cells)
            checked += 1
    assert checked >= 6
    # 1 of 3 passed: 33.3%, with the exact fraction kept in the cell's title
    runs = page.tables["Runs scored"]
    assert runs.column("pass^1 [95% CI]")[runs.column("series").index("a")].startswith("33.3% [")
    table = page.tables["pass^k by k"]
    row = table.column("series").index("a")
    assert table.rows[row][2] == "33.3%"
    assert float(table.titles[row][2] or "nan") == pytest.approx(1 / 3)


def test_rate_plots_show_percentages_in_hover_and_ticks():
    scores = [_score("a", "t1", 1.0), _score("a", "t2", 0.0), _score("b", "t1", 1.0)]
    scores[1].reveal = "hidden"
    _, page = _page(scores)
    (cliff,) = page.figures["reliability"]
    assert "%" in cliff.layout["yaxis"]["tickformat"]
    assert all("%{y:.1%}" in t["hovertemplate"] for t in cliff.data)
    for heat in page.figures["strata"]:
        assert "%" in heat.data[0]["colorbar"]["tickformat"]
        texts = [text for row in heat.data[0]["text"] for text in row if text]
        assert texts and all(re.match(r"^\d+\.\d% \(n=\d+\)$", t) for t in texts), texts


LONG = "a remarkably long agent label that names its model, prompt and temperature setting"


def test_long_labels_are_wrapped_on_axes_with_the_full_text_in_hover():
    scores = [_score(LONG, "t1", 1.0), _score(LONG, "t2", 0.0), _score("short", "t1", 0.0)]
    _, page = _page(scores)
    (ended,) = page.figures["failures"][-1:]
    axis = ended.layout["xaxis"]
    assert LONG in axis["tickvals"]  # the category keeps the whole label
    tick = axis["ticktext"][axis["tickvals"].index(LONG)]
    lines = tick.split("<br>")
    assert len(lines) <= 2 and all(len(line) <= 16 for line in lines) and tick != LONG
    (cliff,) = page.figures["reliability"]
    trace = next(t for t in cliff.data if t["meta"] == LONG)
    assert len(trace["name"]) <= 28 and trace["name"].endswith("…")
    assert trace["hovertemplate"].startswith("%{meta}")


def test_every_axis_makes_room_for_its_labels():
    scores = [_score(LONG, "t1", 1.0), _score(LONG, "t2", 0.0), _score("short", "t1", 0.0)]
    _, page = _page(scores)
    axes = [
        axis
        for figures in page.figures.values()
        for fig in figures
        for name, axis in fig.layout.items()
        if name.startswith(("xaxis", "yaxis"))
    ]
    assert len(axes) >= 4 and all(axis.get("automargin") is True for axis in axes)


def test_24_series_get_24_distinct_colours_the_same_in_every_plot():
    labels = [f"agent-{n:02d}" for n in range(24)]
    scores = []
    for n, label in enumerate(labels):  # pass^1 of 0, 1/3, 2/3: points apart
        for task in range(3):
            reward = float(task < n % 3)
            scores.append(_score(label, f"t{task}", reward, metrics={"sr": reward, "rdl": 0.5}))
    _, page = _page(scores)
    (cliff,) = page.figures["reliability"]
    (dialogue,) = page.figures["dialogue"]
    in_cliff = {t["meta"]: t["marker"]["color"] for t in cliff.data}
    in_bars = {t["meta"]: t["marker"]["color"] for t in dialogue.data}
    assert set(in_cliff) == set(labels) and len(set(in_cliff.values())) == 24
    assert in_bars == in_cliff


def test_the_palette_stays_distinct_past_its_named_colours():
    assert len(set(palette(60))) == 60
    assert palette(30)[:24] == palette(24)  # a series keeps its colour as others are added


def _with_tokens(scores: list[EpisodeScore]) -> list[EpisodeScore]:
    for s in scores:
        s.prompt_tokens, s.completion_tokens = 100, 20
    return scores


def test_a_single_cost_point_is_a_sentence_and_a_row_not_a_plot():
    scores = _with_tokens([_score("a", "t1", 1.0), _score("a", "t2", 0.0)])
    _, page = _page(scores)
    assert page.figures["cost"] == []
    assert "240 tokens" in page.intros["cost"] and "50.0%" in page.intros["cost"]
    assert page.tables["Cost and pass^1"].rows == [["a", "240", "50.0%", "yes"]]


def test_two_cost_points_are_plotted():
    scores = _with_tokens([_score("a", "t1", 1.0), _score("b", "t1", 0.0)])
    _, page = _page(scores)
    assert len(page.figures["cost"]) == 1


def test_a_heat_map_of_one_cell_is_left_out_and_its_table_kept():
    _, page = _page([_score("a", "t1", 1.0), _score("a", "t2", 0.0)])
    assert page.figures["strata"] == []
    assert page.tables["pass^1 by stratum"].rows == [["a", "simple", "volunteer", "2", "50.0%"]]


def _stream_group() -> dict[str, Any]:
    def summary(regret: float) -> dict[str, Any]:
        return {
            "streams": 2,
            "avg_regret": regret,
            "improvement": -12.345,
            "improvement_ci": [-20.0, -4.5],
            "slope": -1.234,
            "slope_ci": [-2.0, -0.5],
            "improves": True,
        }

    contrast = {"learns_from_feedback": True, "by_setting": {}}
    contrast["by_setting"] = {
        "same_customer": {"learns_from_feedback": True},
        "same_choices": {"learns_from_feedback": False},
    }
    return {
        **summary(30.0),
        "n_episodes": 4,
        "kind": "stream",
        "learns_from_feedback": False,
        "feedback_contrast": {"none": contrast},
        "by_setting": {"same_customer": summary(20.0), "same_choices": summary(40.0)},
    }


def test_the_stream_summary_has_a_row_per_setting_with_estimates_in_one_cell():
    from taurec.evaluator.report.page import cell

    rows = [[cell(c) for c in row] for row in summary_rows(Series("s", _stream_group(), []))]
    assert [r[:2] for r in rows] == [["s", "all"], ["s", "same_customer"], ["s", "same_choices"]]
    assert rows[0][4:] == ["-12.3 [-20.0, -4.5]", "-1.23 [-2.00, -0.50]", "yes", "no"]
    assert [r[-1] for r in rows[1:]] == ["yes", "no"]


def test_the_stream_summary_of_a_run_takes_the_whole_width(tmp_path: Path):
    from support.report_runs import stream_run

    logs = stream_run(tmp_path / "stream")
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(logs), "-o", str(out)])
    assert result.exit_code == 0, result.output
    source = out.read_text(encoding="utf-8")
    page = ReportPage(source)
    table = page.tables["Learning summary"]
    assert table.column("setting")[0] == "all" and len(table.rows) >= 2
    estimate = re.compile(r"^-?\d+\.\d+ \[-?\d+\.\d+, -?\d+\.\d+\]$")
    assert all(estimate.match(c) for c in table.column("slope per episode [95% CI]"))
    assert '<div class="table wide"><table><caption>Learning summary' in source
