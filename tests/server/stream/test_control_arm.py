"""A plan with a control arm, served: its control trials play the control's feedback,
every trial in an order of its own, and nothing the agent sees says which arm it is in;
a plan whose arms the server cannot play is refused at start."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from mcp import Client

from taurec.catalog.errors import DataError
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.runs.plan import new_plan, write_plan
from taurec.tasks.stream.protocol import FeedbackMode, StreamProtocol
from taurec.tasks.suite import load_suite

SUITE = load_suite("stream:builtin")
TASK = "stream-variable-category-persona-002"


def plan_file(folder: Path, control: str = "shuffled") -> Path:
    plan = new_plan(
        label="arms",
        suite_id=SUITE.id,
        suite_spec="stream:builtin",
        suite_sha256=SUITE.sha256(),
        catalog_sha256=SUITE.catalog.sha256(),
        task_ids=[TASK],
        trials=2,
        control=control,
    )
    path = folder / "plan.json"
    write_plan(plan, path)
    return path


async def test_control_trials_play_the_controls_feedback_unannounced(tmp_path: Path) -> None:
    path = plan_file(tmp_path)
    arms = {e["trial"]: e["arm"] for e in orjson.loads(path.read_bytes())["episodes"]}
    assert sorted(arms.values()) == ["control", "control", "run", "run"]
    settings = ServerSettings(suite="stream:builtin", log_dir=tmp_path / "logs", plans=(path,))
    seen = {}
    async with Client(build_server(settings)) as client:
        for trial in range(4):
            started = await client.call_tool("start_stream", {"task_id": TASK, "trial": trial})
            data = started.structured_content
            assert data is not None, started
            seen[trial] = (data["opening"], data["current"]["feedback_kind"])
            ended = {"episode_id": data["episode_id"], "reason": "agent_error"}
            await client.call_tool("abort_episode", ended)  # one trial of a stream at a time
    assert len({v for v in seen.values()}) == 1  # the same opening and view in both arms
    for log in (tmp_path / "logs").rglob("*.jsonl"):
        header = orjson.loads(log.read_bytes().splitlines()[0])
        protocol = StreamProtocol.model_validate(header["simulator"]["settings"]["protocol"])
        wanted = FeedbackMode.SHUFFLED if arms[header["trial"]] == "control" else FeedbackMode.TASK
        assert protocol.feedback is wanted and protocol.shuffle_order


def test_a_control_arm_of_the_tasks_feedback_is_not_a_plan() -> None:
    with pytest.raises(ValueError, match="every episode an arm"):
        plan = new_plan(
            label="x",
            suite_id="s",
            suite_spec="s",
            suite_sha256="0" * 64,
            catalog_sha256="0" * 64,
            task_ids=["a"],
            trials=1,
        )
        type(plan).model_validate(plan.model_dump() | {"control": "shuffled"})


async def test_a_server_withholding_feedback_cannot_serve_a_plan_with_arms(tmp_path: Path) -> None:
    path = plan_file(tmp_path)
    settings = ServerSettings(
        suite="stream:builtin",
        log_dir=tmp_path / "logs",
        plans=(path,),
        stream_protocol=StreamProtocol(feedback=FeedbackMode.NONE),
    )
    with pytest.raises(DataError, match="serve it without --feedback none"):
        build_server(settings)


async def test_a_plan_with_arms_on_a_suite_of_another_kind_is_refused(tmp_path: Path) -> None:
    builtin = load_suite("builtin")
    plan = new_plan(
        label="x",
        suite_id=builtin.id,
        suite_spec="builtin",
        suite_sha256=builtin.sha256(),
        catalog_sha256=builtin.catalog.sha256(),
        task_ids=[builtin.tasks[0].id],
        trials=1,
        control="shuffled",
    )
    write_plan(plan, tmp_path / "plan.json")
    settings = ServerSettings(log_dir=tmp_path / "logs", plans=(tmp_path / "plan.json",))
    with pytest.raises(DataError, match="applies to stream suites"):
        build_server(settings)
