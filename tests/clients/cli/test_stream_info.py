"""`taurec tasks info`: a stream suite's shape, the spread of its utilities and the
baselines' regrets; the built-in suite's figures are like BIEL's; another kind of suite
gets one line and exit code 2."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import orjson
from support.streams import make_stream
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.tasks.stream.task import StreamSetting
from taurec.tasks.suite import SuiteManifest, write_suite_dir

cli = CliRunner()
BASELINES = ("random", "popularity", "probe", "learner")


@cache
def builtin_info() -> dict[str, Any]:
    result = cli.invoke(app, ["tasks", "info", "stream:builtin", "--json"])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = orjson.loads(result.stdout)
    return doc


def test_the_builtin_suite_has_40_streams_per_setting_of_10_episodes() -> None:
    info = builtin_info()
    assert set(info["streams_per_setting"].values()) == {40}
    assert info["episodes_per_stream"] == [10] and info["episodes"] == 1200


def test_the_builtin_suites_utilities_spread_as_biels_do() -> None:
    utilities = builtin_info()["utilities"]
    assert 20 <= utilities["sd_mean"] <= 30 and 20 <= utilities["sd_median"] <= 30
    assert utilities["tied_best"] < 0.05
    assert utilities["best_at_ceiling"] < 0.10


def test_every_baseline_has_a_regret_overall_and_per_setting() -> None:
    baselines = builtin_info()["baselines"]
    assert tuple(baselines) == BASELINES
    for figures in baselines.values():
        assert set(figures["by_setting"]) == set(StreamSetting)
        assert figures["regret"] > 0


def test_popularity_is_no_oracle_and_the_learner_learns_with_one_customer() -> None:
    baselines = builtin_info()["baselines"]
    assert baselines["popularity"]["regret"] > 0.6 * baselines["random"]["regret"]
    curve = baselines["learner"]["by_setting"]["variable_category"]["curve"]
    assert sum(curve[-3:]) / 3 < sum(curve[:3]) / 3 - 5


def test_info_prints_the_figures_as_text(tmp_path: Path) -> None:
    manifest = SuiteManifest(format_version=1, id="small", catalog="builtin", kind="stream")
    write_suite_dir(tmp_path, manifest, [make_stream(StreamSetting.VARIABLE_CATEGORY)])
    result = cli.invoke(app, ["tasks", "info", str(tmp_path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for words in ("streams per setting", "within-set utility SD", "tied best", "best = 100"):
        assert words in result.stdout
    for name in ("random (expected)", "popularity", "probe", "learner"):
        assert name in result.stdout


def test_a_suite_of_another_kind_gets_one_line_and_exit_2() -> None:
    result = cli.invoke(app, ["tasks", "info", "builtin"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: builtin is a recommendation suite; taurec tasks info describes stream "
        "and ranking suites\n"
    )


def test_a_missing_suite_gets_one_line_and_exit_2(tmp_path: Path) -> None:
    result = cli.invoke(app, ["tasks", "info", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
