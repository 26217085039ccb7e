"""`taurec plan new`: a plan file for a sealed run, written private and whole."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from taurec.catalog.errors import DataError
from taurec.clients.cli.main import app
from taurec.tasks.runs.plan import read_plan
from taurec.tasks.suite import load_suite

cli = CliRunner()


def test_a_plan_holds_every_task_and_trial_with_a_fresh_private_token(tmp_path: Path) -> None:
    out = tmp_path / "a.plan.json"
    result = cli.invoke(
        app, ["plan", "new", "--label", "my-agent", "--trials", "3", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    plan = read_plan(out)
    suite = load_suite("builtin")
    assert plan.label == "my-agent" and plan.suite.sha256 == suite.sha256()
    assert len(plan.episodes) == 3 * len(suite.tasks)
    assert len(plan.token) >= 32 and plan.token not in result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    again = tmp_path / "b.plan.json"
    cli.invoke(app, ["plan", "new", "--label", "my-agent", "--out", str(again)])
    assert read_plan(again).token != plan.token


def test_a_plan_can_hold_chosen_tasks_only(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    result = cli.invoke(
        app,
        ["plan", "new", "--label", "a", "--tasks", "t002,t001", "--trials", "2", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert read_plan(out).slots() == [("t002", 0), ("t001", 0), ("t002", 1), ("t001", 1)]


def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    cases = [
        (["--label", "[/bold]"], "agent label '[/bold]' is not allowed"),
        (["--label", "a", "--tasks", "t001,nope"], "nope not in suite 'builtin'"),
        (["--label", "a", "--suite", str(tmp_path / "missing")], "missing"),
    ]
    for extra, message in cases:
        result = cli.invoke(app, ["plan", "new", *extra, "--out", str(out)])
        assert result.exit_code == 2, result.output
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
        assert not out.exists()


def test_an_existing_plan_is_not_overwritten_without_force(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    assert cli.invoke(app, ["plan", "new", "--label", "a", "--out", str(out)]).exit_code == 0
    token = read_plan(out).token
    refused = cli.invoke(app, ["plan", "new", "--label", "a", "--out", str(out)])
    assert refused.exit_code == 2 and "exists" in refused.stderr
    assert read_plan(out).token == token
    forced = cli.invoke(app, ["plan", "new", "--label", "a", "--out", str(out), "--force"])
    assert forced.exit_code == 0 and read_plan(out).token != token


def test_a_damaged_plan_file_is_named_with_its_field(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    out.write_text('{"format": "taurec-plan", "label": 5}')
    with pytest.raises(DataError, match="expected a plan from `taurec plan new`") as caught:
        read_plan(out)
    assert str(out) in str(caught.value)


def test_a_plan_pins_the_catalog_the_server_will_serve_in_place_of_the_suites(
    tmp_path: Path,
) -> None:
    """`taurec serve --catalog X --plan P` serves X: P must pin X's digest, which only
    `plan new --catalog X` can write (a plan made without it is refused by that server)."""
    from taurec.catalog.folder import write_catalog_folder
    from taurec.catalog.store import Catalog, builtin_path
    from taurec.server.app import build_server
    from taurec.server.settings import ServerSettings

    builtin = Catalog.load(builtin_path())
    folder = write_catalog_folder(tmp_path / "c.taurec-catalog", builtin.meta, builtin.items)
    pinned, plain = tmp_path / "pinned.json", tmp_path / "plain.json"
    result = cli.invoke(
        app, ["plan", "new", "--label", "a", "--catalog", str(folder), "--out", str(pinned)]
    )
    assert result.exit_code == 0, result.output
    assert f"--catalog {folder}" in result.stderr
    assert read_plan(pinned).catalog_sha256 == Catalog.load(folder).sha256()
    assert cli.invoke(app, ["plan", "new", "--label", "a", "--out", str(plain)]).exit_code == 0

    def serve(plan: Path) -> object:
        settings = ServerSettings(plans=(plan,), catalog=str(folder), log_dir=tmp_path / "logs")
        return build_server(settings)

    serve(pinned)
    with pytest.raises(DataError) as refused:
        serve(plain)
    assert f"make the plan again: taurec plan new --suite builtin --catalog {folder}" in str(
        refused.value
    )


def test_a_catalog_for_a_suite_served_over_its_own_data_is_one_line(tmp_path: Path) -> None:
    result = cli.invoke(
        app,
        ["plan", "new", "--label", "a", "--suite", "ranking:builtin", "--catalog", "x.json",
         "--out", str(tmp_path / "p.json")],
    )  # fmt: skip
    assert result.exit_code == 2 and "only recommendation suites take a catalog" in result.stderr
    assert not (tmp_path / "p.json").exists()
