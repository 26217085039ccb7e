"""Every output format of `evaluator score` and `evaluator episodes` for every task kind,
over small real runs: the table, Markdown (the table's content, one table per kind) and
JSON of `score`; the table, JSON and CSV of `episodes`."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.evaluator.render import group_rows
from taurec.evaluator.text import md_cell
from tests.support.report_runs import ppr_run, ranking_run, recommendation_run, stream_run

runner = CliRunner()

KINDS = ("recommendation", "ranking", "ppr", "stream")
#: a label each kind's run plays under
LABELS = {
    "recommendation": "scripted",
    "ranking": "popularity",
    "ppr": "random",
    "stream": "learner",
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    return {
        "recommendation": recommendation_run(root / "recommendation"),
        "ranking": ranking_run(root / "ranking"),
        "ppr": ppr_run(root / "ppr"),
        "stream": stream_run(root / "stream"),
    }


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def _groups(path: Path) -> list[dict[str, Any]]:
    return orjson.loads(_ok("score", str(path), "--json"))["groups"]


@pytest.mark.parametrize("kind", KINDS)
def test_score_json_has_a_group_of_the_kind(runs: dict[str, Path], kind: str) -> None:
    groups = _groups(runs[kind])
    assert {g["kind"] for g in groups} == {kind}
    assert LABELS[kind] in {g["label"] for g in groups}
    assert all(g["n_episodes"] > 0 for g in groups)


@pytest.mark.parametrize("kind", KINDS)
def test_score_table_shows_each_metric_of_the_kind(runs: dict[str, Path], kind: str) -> None:
    shown = _ok("score", str(runs[kind]))
    assert f"agent: {LABELS[kind]}" in shown
    group = next(g for g in _groups(runs[kind]) if g["label"] == LABELS[kind])
    for metric, _ in group_rows(group)[:8]:  # the table wraps long values, not names
        assert metric.strip()[:20] in shown


@pytest.mark.parametrize("kind", ("ranking", "ppr", "stream"))
def test_score_markdown_holds_the_tables_content(runs: dict[str, Path], kind: str) -> None:
    """A row per metric of the terminal table, a column per label, the table's values."""
    lines = _ok("score", str(runs[kind]), "--format", "markdown").splitlines()
    groups = _groups(runs[kind])
    assert lines[0] == "| metric | " + " | ".join(md_cell(g["label"]) for g in groups) + " |"
    for metric, value in group_rows(groups[0]):
        row = next((r for r in lines if r.startswith(f"| {md_cell(metric.strip())}")), None)
        assert row is not None, (metric, lines)
        assert md_cell(value) in row


def test_ranking_markdown_has_hit_and_ndcg_in_k_order(runs: dict[str, Path]) -> None:
    text = _ok("score", str(runs["ranking"]), "--format", "markdown")
    metrics = [line.split(" | ")[0].removeprefix("| ") for line in text.splitlines()[2:]]
    at_k = [m for m in metrics if "@" in m]
    assert at_k == ["hit@1", "hit@5", "ndcg@5", "hit@10", "ndcg@10"]


def test_ppr_markdown_has_its_accuracy(runs: dict[str, Path]) -> None:
    text = _ok("score", str(runs["ppr"]), "--format", "markdown")
    assert "| accuracy (= reward) |" in text and "| accuracy, MORE tasks |" in text


def test_stream_markdown_has_its_curve_metrics_per_setting(runs: dict[str, Path]) -> None:
    text = _ok("score", str(runs["stream"]), "--format", "markdown")
    (group,) = _groups(runs["stream"])
    for metric in ("average regret", "slope per episode", "regret by episode (±SE)"):
        assert f"| {metric} |" in text
    for setting, sg in group["by_setting"].items():
        row = next(line for line in text.splitlines() if line.startswith(f"| {md_cell(setting)} |"))
        assert f"regret {sg['avg_regret']:.1f}" in row and "slope" in row


def test_recommendation_markdown_is_a_row_per_label(runs: dict[str, Path]) -> None:
    lines = _ok("score", str(runs["recommendation"]), "--format", "markdown").splitlines()
    assert lines[0].startswith("| agent | run | episodes | pass^1 |")
    assert sorted(line.split(" | ")[0] for line in lines[2:]) == ["| random", "| scripted"]


def test_markdown_of_mixed_kinds_has_one_headed_table_per_kind(runs: dict[str, Path]) -> None:
    text = _ok("score", *(str(runs[k]) for k in KINDS), "--format", "markdown")
    headings = [line for line in text.splitlines() if line.startswith("### ")]
    assert sorted(headings) == sorted(f"### {k}" for k in KINDS)
    assert text.count("| metric |") == 3 and text.count("| agent | run |") == 1


@pytest.mark.parametrize("kind", KINDS)
def test_episodes_json_lists_every_episode_of_the_kind(runs: dict[str, Path], kind: str) -> None:
    rows = orjson.loads(_ok("episodes", str(runs[kind]), "--json"))
    assert len(rows) == sum(g["n_episodes"] for g in _groups(runs[kind]))
    assert {r["kind"] for r in rows} == {kind}


@pytest.mark.parametrize("kind", KINDS)
def test_episodes_csv_has_a_line_per_episode(runs: dict[str, Path], kind: str) -> None:
    rows = list(csv.DictReader(io.StringIO(_ok("episodes", str(runs[kind]), "--csv"))))
    assert len(rows) == sum(g["n_episodes"] for g in _groups(runs[kind]))
    assert {r["kind"] for r in rows} == {kind} and LABELS[kind] in {r["label"] for r in rows}


@pytest.mark.parametrize("kind", KINDS)
def test_episodes_table_names_the_label(runs: dict[str, Path], kind: str) -> None:
    shown = _ok("episodes", str(runs[kind]))
    n = sum(g["n_episodes"] for g in _groups(runs[kind]))
    assert shown.startswith(f"{n} episodes") and LABELS[kind] in shown
