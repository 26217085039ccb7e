"""The simulated users `taurec run` and `taurec serve` offer are the server's own, and a
mismatch of --simulator and --simulator-model is told in the flags' names."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.clients.cli.simulator_options import SimulatorName
from taurec.server.recommendation.simulators import SIMULATORS
from taurec.server.settings import SimulatorKind


def test_the_cli_offers_exactly_the_servers_simulators() -> None:
    assert [s.value for s in SimulatorName] == list(SIMULATORS)


def test_the_cli_offers_exactly_what_the_settings_accept() -> None:
    assert [s.value for s in SimulatorName] == list(get_args(SimulatorKind))


@pytest.mark.parametrize("command", ["serve", "run"])
@pytest.mark.parametrize("simulator", ["llm", "llm-sp", "llm-dp"])
def test_an_llm_user_without_a_model_names_the_flag_not_the_field(
    command: str, simulator: str, tmp_path: Path
) -> None:
    args = [command, "--simulator", simulator, "--log-dir", str(tmp_path / "logs")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"--simulator {simulator} needs --simulator-model MODEL" in result.output
    assert "simulator_model" not in result.output
    assert result.output.count("\n") == 1


def test_a_model_for_a_user_that_takes_none_names_the_flags(tmp_path: Path) -> None:
    args = ["serve", "--simulator-model", "openai/gpt-4o-mini", "--log-dir", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "--simulator-model applies to --simulator llm, llm-sp and llm-dp only" in result.output


def test_every_simulator_and_model_pairing_is_told_apart() -> None:
    for name in SimulatorName:
        assert (name.model_problem(None) is None) is not name.calls_an_llm
        assert (name.model_problem("openai/gpt-4o-mini") is None) is name.calls_an_llm
