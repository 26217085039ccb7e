"""The simulated users `taurec run` and `taurec serve` offer are the server's own."""

from __future__ import annotations

from typing import get_args

from taurec.clients.cli.simulator_options import SimulatorName
from taurec.server.recommendation.simulators import SIMULATORS
from taurec.server.settings import SimulatorKind


def test_the_cli_offers_exactly_the_servers_simulators() -> None:
    assert [s.value for s in SimulatorName] == list(SIMULATORS)


def test_the_cli_offers_exactly_what_the_settings_accept() -> None:
    assert [s.value for s in SimulatorName] == list(get_args(SimulatorKind))
