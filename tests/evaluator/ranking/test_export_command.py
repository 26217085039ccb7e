"""`evaluator export` over a folder holding an episode that never ended (a submission the
MCP schema refused leaves it open): the finished ones are exported, the open one is
skipped with a note, instead of the whole export failing."""

from __future__ import annotations

from pathlib import Path

import orjson
from mcp import Client
from support.ranking import write_ranking_suite
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite


async def test_an_unfinished_episode_is_skipped_with_a_note(tmp_path: Path):
    suite = str(write_ranking_suite(tmp_path / "s", n=2))
    tasks = load_suite(suite).tasks
    settings = ServerSettings(suite=suite, log_dir=tmp_path / "logs", run_label="r")
    async with Client(build_server(settings)) as client:
        for task, ranking in ((tasks[0], 5), (tasks[1], list(tasks[1].candidates[:10]))):
            started = await client.call_tool("start_episode", {"task_id": task.id})
            episode_id = started.structured_content["episode_id"]
            reply = await client.call_tool(
                "submit_ranking", {"episode_id": episode_id, "ranking": ranking}
            )
            assert reply.is_error == (ranking == 5)  # refused by the schema: still open
    result = CliRunner().invoke(
        app, ["export", str(tmp_path / "logs"), "--format", "grpo", "--suite", suite]
    )
    assert result.exit_code == 0, result.output
    assert "1 unfinished episode(s) skipped" in result.stderr
    (group,) = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert group["task_id"] == tasks[1].id
