"""Failed episodes in the report are links: to their page in the viewer's bundle when one
is written with the report (`--bundle`) or named (`--viewer`), else to their log file."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from support.report_page import ReportPage
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.evaluator.report.links import relative_url

runner = CliRunner()


def _report(logs: Any, out: Path, *extra: str) -> ReportPage:
    result = runner.invoke(
        app, ["report", str(logs.out), "-o", str(out), "--suite", logs.spec, *extra]
    )
    assert result.exit_code == 0, result.output
    return ReportPage(out.read_text(encoding="utf-8"))


def _failed_links(page: ReportPage) -> list[tuple[str, str]]:
    log_cells = page.tables["Failed episodes"].column("log")
    links = [(href, text) for href, text in page.links if text in log_cells]
    assert len(links) == len(log_cells) > 0
    return links


def test_without_a_viewer_each_failed_episode_links_to_its_log(logs, tmp_path):
    logs.run({"ta": 1, "tb": 0, "tc": 0}, trials=1)
    out = tmp_path / "site" / "report.html"
    out.parent.mkdir()
    for href, text in _failed_links(_report(logs, out)):
        assert not href.startswith(("/", "file:", "http"))  # relative: the folder can move
        assert (out.parent / unquote(href)).resolve() == Path(text).resolve()


def test_with_bundle_each_failed_episode_links_to_its_viewer_page(logs, tmp_path):
    logs.run({"ta": 1, "tb": 0, "tc": 0}, trials=1)
    out = tmp_path / "report.html"
    links = _failed_links(_report(logs, out, "--bundle", str(tmp_path / "viewer")))
    assert len(links) == 2
    for href, _ in links:
        page, _, key = href.partition("#/episode/")
        assert page == "viewer/index.html" and (tmp_path / page).is_file()
        assert (tmp_path / "viewer" / "data" / f"episode-{key}.js").is_file()


def test_viewer_names_a_bundle_written_before_even_from_another_path_spelling(
    logs, tmp_path, monkeypatch
):
    logs.run({"ta": 0, "tb": 1, "tc": 1}, trials=1)
    bundle = tmp_path / "published"
    # the bundle from an absolute path, the report from a relative one: keys differ, ids match
    viewed = runner.invoke(
        app, ["view", str(logs.out.resolve()), "--suite", logs.spec, "--bundle", str(bundle)]
    )
    assert viewed.exit_code == 0, viewed.output
    monkeypatch.chdir(logs.out.parent)
    logs.out = Path(logs.out.name)
    out = tmp_path / "report.html"
    ((href, _),) = _failed_links(_report(logs, out, "--viewer", str(bundle)))
    key = href.partition("#/episode/")[2]
    assert href.startswith("published/index.html#/episode/")
    assert (bundle / "data" / f"episode-{key}.js").is_file()


def test_viewer_may_be_a_url(logs, tmp_path):
    logs.run({"ta": 0, "tb": 1, "tc": 1}, trials=1)
    page = _report(logs, tmp_path / "r.html", "--viewer", "https://example.org/run-7/")
    ((href, _),) = _failed_links(page)
    assert href.startswith("https://example.org/run-7/index.html#/episode/")


def test_a_viewer_folder_without_a_bundle_is_a_one_line_error(logs, tmp_path):
    logs.run({"ta": 0, "tb": 1, "tc": 1}, trials=1)
    out = tmp_path / "r.html"
    args = ["report", str(logs.out), "-o", str(out), "--viewer", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stderr.strip().count("\n") == 0
    assert "no viewer bundle there" in result.stderr and not out.exists()


def test_bundle_and_viewer_together_are_a_one_line_error(logs, tmp_path):
    logs.run({"ta": 0, "tb": 1, "tc": 1}, trials=1)
    args = ["report", str(logs.out), "-o", str(tmp_path / "r.html")]
    result = runner.invoke(app, [*args, "--bundle", str(tmp_path / "b"), "--viewer", "x"])
    assert result.exit_code == 2 and "give one" in result.stderr


@pytest.mark.parametrize(
    ("bundle", "out", "why"),
    [("afile", "r.html", "not a folder"), ("site", "site/index.html", "the viewer's page")],
)
def test_a_bundle_that_cannot_be_written_beside_the_report_is_a_one_line_error(
    logs, tmp_path, bundle, out, why
):
    logs.run({"ta": 0, "tb": 1, "tc": 1}, trials=1)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "site").mkdir()
    args = ["report", str(logs.out), "-o", str(tmp_path / out), "--bundle", str(tmp_path / bundle)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stderr.strip().count("\n") == 0
    assert why in result.stderr and not (tmp_path / out).exists()


def test_a_log_path_never_becomes_a_scheme(tmp_path):
    odd = tmp_path / "javascript:alert(1)" / "a b#c.jsonl"
    href = relative_url(odd, tmp_path)
    assert href == "javascript%3Aalert%281%29/a%20b%23c.jsonl"
