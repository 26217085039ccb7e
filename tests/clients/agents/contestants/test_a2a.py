"""An Agent2Agent agent as a contestant: the reference A2A agent on loopback plays full
episodes through `taurec run`, scored by `evaluator score`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from a2a.helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from support.http_server import free_port
from support.loopback import serve_factory
from support.scoring import score_groups
from typer.testing import CliRunner

from taurec.clients.agents.contestants.a2a import A2AUnavailable, check_card
from taurec.clients.agents.contestants.a2a_demo import a2a_app
from taurec.clients.cli.main import app
from taurec.tasks.trajectory.reader import read_log

runner = CliRunner()
TASKS = "t001,t002,t004"


@pytest.fixture(scope="module")
def a2a_url() -> Iterator[str]:
    with serve_factory(a2a_app) as url:
        yield url


def _run(out: Path, *args: str):
    return runner.invoke(app, ["run", "--tasks", TASKS, "--trials", "2", "--out", str(out), *args])


def test_the_reference_agent_serves_its_card(a2a_url: str) -> None:
    check_card(a2a_url)


def test_an_unreachable_agent_has_no_card() -> None:
    with pytest.raises(A2AUnavailable, match="no A2A agent answers"):
        check_card(f"http://127.0.0.1:{free_port()}")


def test_run_with_an_unreachable_a2a_agent_exits_2_with_one_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = runner.invoke(app, ["run", "--agent", "a2a", "--a2a-url", url, "--out", str(tmp_path)])
    assert result.exit_code == 2 and "no A2A agent answers" in result.output


def test_run_with_agent_a2a_needs_a_url(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--agent", "a2a", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--a2a-url" in result.output


@pytest.fixture(scope="module")
def a2a_logs(a2a_url: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The logs of one run of the reference A2A agent over TASKS, 2 trials."""
    out = tmp_path_factory.mktemp("a2a") / "logs"
    result = _run(out, "--agent", "a2a", "--a2a-url", a2a_url)
    assert result.exit_code == 0, result.output
    return out


def test_a2a_episodes_run_to_the_end_and_are_scored_by_pass_k(a2a_logs: Path) -> None:
    logs = sorted(a2a_logs.rglob("*.jsonl"))
    assert len(logs) == 6
    assert {read_log(p).events[-1]["reason"] for p in logs} <= {"recommended", "abstained"}
    (group,) = score_groups(a2a_logs)
    assert group["label"] == "a2a" and group["n_episodes"] == 6 and "2" in group["pass_k"]


def test_the_reference_a2a_agent_scores_as_the_policy_it_plays(
    a2a_logs: Path, tmp_path: Path
) -> None:
    assert _run(tmp_path / "direct", "--agent", "scripted").exit_code == 0
    (a2a,) = score_groups(a2a_logs)
    (scripted,) = score_groups(tmp_path / "direct")
    assert a2a["pass_k"] == scripted["pass_k"]
    assert a2a["efficiency"]["median_tool_calls"] == scripted["efficiency"]["median_tool_calls"]


class Idle(AgentExecutor):
    """An A2A agent that answers without touching the episode."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await event_queue.enqueue_event(new_text_message("I would rather not."))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def test_an_episode_the_a2a_agent_leaves_open_is_an_agent_error(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    with serve_factory(lambda url: a2a_app(url, Idle())) as url:
        result = runner.invoke(
            app,
            ["run", "--agent", "a2a", "--a2a-url", url, "--tasks", "t001", "--trials", "1",
             "--out", str(out)],
        )  # fmt: skip
    assert result.exit_code == 1, result.output  # its one episode errored
    (log,) = out.rglob("*.jsonl")
    assert read_log(log).events[-1]["reason"] == "agent_error"
