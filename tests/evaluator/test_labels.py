"""Labels, task ids and paths from logs are printed as data: rich markup, ANSI escapes,
table separators and newlines in a label cannot crash, hide or forge any report."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.evaluator.text import csv_cell, markup, md_cell, plain

runner = CliRunner()
HOSTILE = ["[/bold]", "[conceal]scripted", "x|1|2\n| forged | 99 |", "\x1b[31mred\x1b[0m"]


def test_control_characters_are_shown_as_escapes() -> None:
    assert plain("a\x1b[31mb\nc") == "a\\x1b[31mb\\nc"
    assert markup("[/bold]") == "\\[/bold]"
    assert md_cell("a|b\nc") == "a\\|b\\\\nc"


def test_hostile_labels_print_literally_in_the_table(logs) -> None:
    for label in HOSTILE:
        logs.run({"ta": 1, "tb": 0, "tc": 1}, trials=1, label=label)
    result = runner.invoke(app, ["score", str(logs.out), "--suite", logs.spec])
    assert result.exit_code == 0, result.output
    assert "agent: [/bold]" in result.stdout
    assert "agent: [conceal]scripted" in result.stdout
    assert "\x1b" not in result.stdout and "\\x1b[31mred" in result.stdout


def test_hostile_labels_cannot_forge_a_markdown_row(logs) -> None:
    for label in HOSTILE:
        logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1, label=label)
    result = runner.invoke(
        app, ["score", str(logs.out), "--suite", logs.spec, "--format", "markdown"]
    )
    assert result.exit_code == 0, result.output
    rows = result.stdout.splitlines()
    assert len(rows) == 2 + len(HOSTILE)  # header, rule, one row per label: nothing injected
    assert all(row.count(" | ") == rows[0].count(" | ") for row in rows[2:])


def test_explain_and_compare_print_hostile_labels_literally(logs) -> None:
    path = logs.episode("ta", 0, item="c1", label="[/bold]")
    logs.run({"ta": 0, "tb": 0, "tc": 0}, trials=1, label="[conceal]x")
    explained = runner.invoke(app, ["explain", str(path), "--suite", logs.spec])
    assert explained.exit_code == 0 and "agent [/bold]" in explained.stdout
    compared = runner.invoke(
        app, ["compare", "[/bold]", "[conceal]x", str(logs.out), "--suite", logs.spec]
    )
    assert compared.exit_code == 0, compared.output
    assert "pass^1([/bold]) - pass^1([conceal]x)" in compared.stdout


def test_markdown_cells_show_html_and_emphasis_literally() -> None:
    assert md_cell("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert md_cell("&lt;b&gt;") == "&amp;lt;b&amp;gt;"  # an entity stays text, too
    assert md_cell("*a* _b_ [c](d) `e` ~f~") == "\\*a\\* \\_b\\_ \\[c\\](d) \\`e\\` \\~f\\~"


def test_html_in_a_label_is_escaped_in_the_markdown_report(logs) -> None:
    for label in ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>"):
        logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1, label=label)
    result = runner.invoke(
        app, ["score", str(logs.out), "--suite", logs.spec, "--format", "markdown"]
    )
    assert result.exit_code == 0, result.output
    assert "<" not in result.stdout and ">" not in result.stdout
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in result.stdout


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("  =1+1", "'  =1+1"),
        ("\tcmd", "\\tcmd"),
        ("\x1b[31mred\x07", "\\x1b[31mred\\x07"),
        ("agentA", "agentA"),
        ("", ""),
    ],
)
def test_csv_cells_never_start_a_formula_nor_carry_control_bytes(text: str, cell: str) -> None:
    assert csv_cell(text) == cell
