"""`--label PATTERN` (shell-style, repeatable) on score, episodes, report and view: only
the matching labels are shown, a label's numbers do not change with the filter, and a
pattern that matches no label is one error line listing the labels there, exit 2."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.evaluator.labels import LabelFilter, no_match_message

runner = CliRunner()

LABELS = ("llm-a", "llm-b", "scripted")


@pytest.fixture
def three(logs):
    for n, label in enumerate(LABELS):
        logs.run({"ta": n % 2, "tb": 1}, trials=1, label=label)
    return logs


def _score(logs, *args: str):
    return runner.invoke(app, ["score", str(logs.out), "--suite", logs.spec, *args])


def _labels(result) -> list[str]:
    assert result.exit_code == 0, result.output
    return [g["label"] for g in orjson.loads(result.stdout)["groups"]]


def test_a_glob_keeps_the_labels_it_matches(three) -> None:
    assert _labels(_score(three, "--json", "--label", "llm*")) == ["llm-a", "llm-b"]


def test_the_option_repeats(three) -> None:
    assert _labels(_score(three, "--json", "--label", "llm-a", "--label", "scr*")) == [
        "llm-a",
        "scripted",
    ]


def test_a_labels_numbers_are_the_same_with_or_without_the_filter(three) -> None:
    everything = orjson.loads(_score(three, "--json").stdout)["groups"]
    (alone,) = orjson.loads(_score(three, "--json", "--label", "llm-b").stdout)["groups"]
    assert alone == next(g for g in everything if g["label"] == "llm-b")


def test_the_json_says_which_labels_were_asked_for(three) -> None:
    doc = orjson.loads(_score(three, "--json", "--label", "llm*").stdout)
    assert doc["labels"] == ["llm*"]


def test_the_table_and_markdown_show_only_the_chosen_labels(three) -> None:
    table = _score(three, "--label", "scripted").stdout
    assert "agent: scripted" in table and "llm-a" not in table
    md = _score(three, "--format", "markdown", "--label", "llm-a").stdout.splitlines()
    assert [line.split(" | ")[0] for line in md[2:]] == ["| llm-a"]


@pytest.mark.parametrize("command", ["score", "episodes"])
def test_a_pattern_matching_no_label_is_one_line_listing_the_labels(three, command) -> None:
    result = runner.invoke(app, [command, str(three.out), "--suite", three.spec, "--label", "gpt*"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "error: --label 'gpt*' matches no label; labels here: llm-a, llm-b, scripted"
    ]


def test_every_pattern_must_match(three) -> None:
    result = _score(three, "--label", "llm*", "--label", "nobody")
    assert result.exit_code == 2 and "--label 'nobody' matches no label" in result.stderr


def test_episodes_lists_only_the_chosen_labels(three) -> None:
    result = runner.invoke(
        app, ["episodes", str(three.out), "--suite", three.spec, "--json", "--label", "*-b"]
    )
    assert result.exit_code == 0, result.output
    assert {r["label"] for r in orjson.loads(result.stdout)} == {"llm-b"}


def test_the_report_holds_only_the_chosen_labels(three, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    args = ["report", str(three.out), "--suite", three.spec, "-o", str(out)]
    result = runner.invoke(app, [*args, "--label", "scripted"])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "scripted" in page and "llm-a" not in page and "llm-b" not in page
    wrong = runner.invoke(app, [*args, "--label", "x"])
    assert wrong.exit_code == 2 and "--label 'x' matches no label" in wrong.stderr


def test_the_viewer_bundle_holds_only_the_chosen_labels(three, tmp_path: Path) -> None:
    site = tmp_path / "site"
    args = ["view", str(three.out), "--suite", three.spec, "--bundle", str(site)]
    result = runner.invoke(app, [*args, "--label", "llm-a"])
    assert result.exit_code == 0, result.output
    episodes = (site / "data" / "episodes.js").read_text()
    assert '"label":"llm-a"' in episodes and '"label":"scripted"' not in episodes
    wrong = runner.invoke(app, [*args, "--label", "x"])
    assert wrong.exit_code == 2 and "labels here: llm-a, llm-b, scripted" in wrong.stderr


def test_a_filter_matches_shell_style_and_by_case() -> None:
    chosen = LabelFilter(("llm-?", "[sS]cripted"))
    assert [x for x in ("llm-a", "llm-ab", "Scripted", "LLM-a") if chosen.matches(x)] == [
        "llm-a",
        "Scripted",
    ]
    assert LabelFilter().matches("anything") and not LabelFilter()


def test_a_long_list_of_labels_is_cut_in_the_error() -> None:
    line = no_match_message("x", [f"a{n:02d}" for n in range(30)])
    assert line.endswith("a19 and 10 more") and "\n" not in line
