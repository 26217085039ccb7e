"""An agent that raises is never invisible: its episode ends as agent_error with the
traceback in the log's end record (cut to its last 8 KB by the server, whatever a client
sends), and `fail_fast` stops the run at the first such episode."""

from __future__ import annotations

import re
from pathlib import Path

import orjson

from taurec.clients.agents.base import TRACEBACK_META_KEY, Episode
from taurec.clients.runner.agent_errors import logged_traceback
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import EpisodeSpec, plan
from taurec.clients.runner.runner import EpisodeResult, Runner, RunReport
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.format import MAX_TRACEBACK_BYTES


def _end(result: EpisodeResult) -> dict:
    assert result.log is not None
    return orjson.loads(result.log.read_bytes().splitlines()[-1])


async def _run(agent, out: Path, specs: list[EpisodeSpec], **kw) -> RunReport:
    settings = ServerSettings(log_dir=out, run_label="r")
    runner = Runner(agent, Connection("inproc", settings), out, "r", handle_signals=False, **kw)
    report = await runner.run(specs)
    assert report.failure is None, report.failure
    return report


class Crasher:
    label = "crasher"

    async def run(self, episode: Episode) -> None:
        await episode.say("Hello!")
        self.fail_inside()

    def fail_inside(self) -> None:
        raise RuntimeError("bug in the agent <b>here</b>")


class Quitter:
    label = "quitter"

    async def run(self, episode: Episode) -> None:
        await episode.say("Hello!")


class CrashesOnT002:
    label = "t002-crasher"

    async def run(self, episode: Episode) -> None:
        if episode.task_id == "t002":
            raise KeyError("t002")
        await episode.recommend(None)


class Reporter:
    """Sends `traceback` with its abort (as a harness may), or with its recommend."""

    label = "reporter"

    def __init__(self, traceback: object, tool: str = "abort_episode") -> None:
        self.traceback, self.tool = traceback, tool

    async def run(self, episode: Episode) -> None:
        arguments = {"reason": "agent_error", "detail": "gave up"}
        if self.tool == "recommend":
            arguments = {"item_id": None}
        await episode.call_raw(self.tool, arguments, {TRACEBACK_META_KEY: self.traceback})
        episode.ended = True


async def test_a_crash_ends_as_agent_error_with_its_traceback_in_the_end_record(
    tmp_path: Path,
) -> None:
    (result,) = (await _run(Crasher(), tmp_path, [EpisodeSpec("t001", 0)])).results
    end = _end(result)
    assert end["reason"] == "agent_error"
    assert end["detail"] == "aborted: the agent raised RuntimeError: bug in the agent <b>here</b>"
    trace = end["traceback"]
    assert trace.startswith("Traceback (most recent call last):")
    assert "in fail_inside" in trace and 'raise RuntimeError("bug in the agent' in trace
    assert trace.rstrip().endswith("RuntimeError: bug in the agent <b>here</b>")
    assert "in _play" not in trace  # the agent's frames, not the runner's
    assert logged_traceback(result.log) == trace
    assert result.score is not None and not result.score.infra_error and not result.passed


async def test_an_agent_that_returns_without_committing_ends_as_agent_error_saying_so(
    tmp_path: Path,
) -> None:
    (result,) = (await _run(Quitter(), tmp_path, [EpisodeSpec("t001", 0)])).results
    end = _end(result)
    assert end["reason"] == "agent_error"
    assert end["detail"] == "aborted: the agent returned without committing"
    assert "traceback" not in end
    assert result.error == "the agent returned without committing"


async def test_fail_fast_stops_at_the_first_agent_error_and_starts_nothing_after_it(
    tmp_path: Path,
) -> None:
    specs = plan(["t001", "t002", "t003", "t004"], 1)
    report = await _run(CrashesOnT002(), tmp_path, specs, concurrency=1, fail_fast=True)
    assert report.failed_fast
    assert [(r.spec.task_id, r.end_reason) for r in report.results] == [
        ("t001", "abstained"),
        ("t002", "agent_error"),
    ]
    assert {p.parent.name for p in tmp_path.rglob("*.jsonl")} == {"t001", "t002"}


async def test_without_fail_fast_a_run_plays_on_past_an_agent_error(tmp_path: Path) -> None:
    specs = plan(["t001", "t002", "t003"], 1)
    report = await _run(CrashesOnT002(), tmp_path, specs, concurrency=1)
    assert not report.failed_fast
    assert sorted(r.end_reason for r in report.results) == ["abstained", "abstained", "agent_error"]


async def test_the_server_keeps_only_the_last_8_kb_of_a_traceback_it_is_sent(
    tmp_path: Path,
) -> None:
    sent = "Traceback (most recent call last):\n" + "  frame é\n" * 5000 + "ValueError: last"
    (result,) = (await _run(Reporter(sent), tmp_path, [EpisodeSpec("t001", 0)])).results
    kept = _end(result)["traceback"]
    assert len(kept.encode()) <= MAX_TRACEBACK_BYTES
    assert kept.endswith("  frame é\nValueError: last")
    assert re.fullmatch(r"\[[\d,]+ earlier bytes cut\]", kept.split("\n", 1)[0])


async def test_a_traceback_that_is_not_text_is_left_out(tmp_path: Path) -> None:
    (result,) = (await _run(Reporter({"a": 1}), tmp_path, [EpisodeSpec("t001", 0)])).results
    end = _end(result)
    assert end["reason"] == "agent_error" and "traceback" not in end


async def test_a_traceback_sent_with_a_commit_is_not_logged(tmp_path: Path) -> None:
    agent = Reporter("Traceback: nothing went wrong", tool="recommend")
    (result,) = (await _run(agent, tmp_path, [EpisodeSpec("t001", 0)])).results
    end = _end(result)
    assert end["reason"] == "abstained" and "traceback" not in end
    assert "nothing went wrong" not in result.log.read_text()


async def test_a_commit_answered_in_text_is_never_taken_for_an_agent_error(
    tmp_path: Path,
) -> None:
    from taurec.clients.agents.ranking.agents import RandomRanker

    settings = ServerSettings(suite="ranking:builtin", log_dir=tmp_path, run_label="r")
    connection = Connection("inproc", settings)
    runner = Runner(RandomRanker(), connection, tmp_path, "r", handle_signals=False)
    (result,) = (await runner.run([EpisodeSpec("rank_001", 0)])).results
    assert _end(result)["reason"] == "recommended"
    assert (result.end_reason, result.error) == ("recommended", None)


class CallsForever:
    label = "looper"

    async def run(self, episode: Episode) -> None:
        while not episode.ended:
            await episode.call("get_user_history")


async def test_an_episode_the_server_ended_at_its_call_limit_is_printed_with_that_cause(
    tmp_path: Path,
) -> None:
    from rich.console import Console

    from taurec.clients.runner.agent_errors import logged_detail, print_agent_errors

    settings = ServerSettings(log_dir=tmp_path, run_label="r", max_tool_calls_per_episode=3)
    runner = Runner(
        CallsForever(), Connection("inproc", settings), tmp_path, "r", handle_signals=False
    )
    report = await runner.run(plan(["t001"], 1))
    (result,) = report.results
    assert "tool-call limit" in (logged_detail(result.log) or "")
    console = Console(record=True, width=200)
    print_agent_errors(report, console)
    shown = console.export_text()
    assert "tool-call limit" in shown and "no cause recorded" not in shown
