"""A dialogue a shutdown cuts off, as the other kinds' (server/episode_end.shutdown_end): in
a sealed run, once the simulated user has replied it counts as played (a failure), since
a replay would know what the user said; before that, catalog outputs included, it may be
played again. In open mode, where any task may be replayed anyway, every cut is
replayable."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from support.shutdown_cuts import cut_off, scored, start_again_after_restart

from taurec.clients.runner.plan import summarize_log
from taurec.server.episode_end import SHUTDOWN_DETAIL

SUITE = "builtin"


async def _hear_the_user(client: Client, episode_id: str) -> None:
    arguments = {"episode_id": episode_id, "text": "Any genre you would rather avoid?"}
    answered = await client.call_tool("send_message", arguments)
    assert not answered.is_error and answered.structured_content["reply"]


async def _only_search(client: Client, episode_id: str) -> None:
    arguments = {"episode_id": episode_id, "query": "space"}
    assert not (await client.call_tool("search_catalog", arguments)).is_error


async def test_in_a_sealed_run_a_cut_after_the_user_replied_is_a_played_failure(
    tmp_path: Path,
) -> None:
    """The practice-oracle attack: pitch titles, hear the user react, park the episode
    until an operator's restart, play it again knowing the reactions."""
    logs = tmp_path / "logs"
    end = await cut_off(SUITE, logs, sealed=True, act=_hear_the_user)
    assert end["reason"] == "infra_error"
    assert (
        end["detail"] == f"{SHUTDOWN_DETAIL} (after the contestant saw the user's replies: played)"
    )
    again = await start_again_after_restart(SUITE, logs)
    assert again.is_error and "was already played in this sealed run" in again.text
    group, run, problems = scored(logs)
    assert run["counted"] == 1 and run["failed"] == {"never started": 3}
    assert group["infra_errors"] == 4 and group["passed"] == 0  # 3 never started, 1 cut
    assert any(end["detail"] in problem for problem in problems)


async def test_in_a_sealed_run_a_cut_before_the_user_replied_may_be_played_again(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "logs"
    end = await cut_off(SUITE, logs, sealed=True, act=_only_search)
    assert end["reason"] == "infra_error" and end["detail"] == SHUTDOWN_DETAIL
    again = await start_again_after_restart(SUITE, logs)
    assert not again.is_error, again.text
    assert again.data["trial"] == 0


@pytest.mark.parametrize("act", [_only_search, _hear_the_user])
async def test_in_open_mode_a_shutdown_cut_is_always_replayable(tmp_path: Path, act) -> None:
    logs = tmp_path / "logs"
    end = await cut_off(SUITE, logs, sealed=False, act=act)
    assert end["reason"] == "infra_error" and end["detail"] == SHUTDOWN_DETAIL
    (log,) = logs.rglob("*.jsonl")
    assert summarize_log(log).cut_off  # `taurec run --resume` plays it again
