"""`taurec run` with an agent that raises or returns without committing: after the table,
on stderr, how many episodes ended in an agent error and the first one's traceback; exit
1 when every episode did; `--fail-fast` stops at the first; `evaluator score` flags such
a label instead of diagnosing a failure mode. `run_agent()` says the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.crashing_agents import AGENTS
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.clients.runner.programmatic import run_agent
from taurec.evaluator.cli.main import app as evaluator

runner = CliRunner()


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("agents") / "my_agents.py"
    path.write_text(AGENTS)
    return path


@pytest.fixture(scope="module")
def crashed(agents: Path, tmp_path_factory: pytest.TempPathFactory):
    """A run of the crashing agent on two tasks: its result and its log folder."""
    out = tmp_path_factory.mktemp("crashed") / "logs"
    result = _run(f"{agents}:Crasher", out, "--tasks", "t001,t002")
    return result, out


def _run(agent: str, out: Path, *args: str):
    return runner.invoke(app, ["run", "--agent", agent, "--trials", "1", "--out", str(out), *args])


def test_a_crashing_agent_fails_the_run_with_the_count_and_first_traceback(crashed) -> None:
    result, out = crashed
    assert result.exit_code == 1, result.output
    err = result.stderr
    assert "agent errors: 2 of 2 episodes ended in an agent error" in err
    assert "Traceback (most recent call last):" in err
    assert 'raise ValueError("boom in the agent")' in err and "ValueError: boom in the agent" in err
    assert "all 2 episodes ended in an error (2 agent errors)" in err
    assert err.index("agent errors:") < err.index("all 2 episodes ended")  # the count, then why 1
    first_log = err.split("the whole episode: evaluator explain ", 1)[1].split()[0]
    assert Path(first_log).is_file() and Path(first_log).is_relative_to(out)


def test_a_crashing_agent_gets_no_failure_mode_diagnosis(crashed) -> None:
    result, _ = crashed
    assert "agent: crasher" in result.stdout
    assert "abstainer" not in result.stdout
    assert "failure mode" in result.stdout and "none diagnosed: the agent" in result.stdout


def test_evaluator_score_flags_a_label_whose_every_episode_errored(crashed) -> None:
    _, out = crashed
    scored = runner.invoke(evaluator, ["score", str(out)])
    assert scored.exit_code == 0, scored.output
    flag = "every episode ended in an agent error: see the first traceback with `evaluator explain "
    assert f"agent errors: crasher: {flag}" in " ".join(scored.stderr.split())
    assert "abstainer" not in scored.stdout
    log = scored.stderr.split("evaluator explain ", 1)[1].split("`", 1)[0]
    explained = runner.invoke(evaluator, ["explain", log])
    assert explained.exit_code == 0, explained.output
    assert "the agent's traceback:" in explained.stdout
    assert "ValueError: boom in the agent" in explained.stdout


def test_evaluator_score_json_counts_agent_errors(crashed) -> None:
    import orjson

    _, out = crashed
    (group,) = orjson.loads(runner.invoke(evaluator, ["score", str(out), "--json"]).stdout)[
        "groups"
    ]
    assert group["agent_errors"] == 2 and group["agent_error_log"].endswith(".jsonl")
    assert group["failure_mode"]["mode"] == "agent-error"


def test_an_agent_that_returns_without_committing_fails_the_run_saying_so(
    agents: Path, tmp_path: Path
) -> None:
    result = _run(f"{agents}:Quitter", tmp_path / "logs", "--tasks", "t001")
    assert result.exit_code == 1, result.output
    assert "agent errors: 1 of 1 episode ended in an agent error" in result.stderr
    assert "  the agent returned without committing" in result.stderr
    assert "the one episode ended in an error (1 agent error)" in result.stderr


def test_a_run_where_only_some_episodes_errored_names_them_and_succeeds(
    agents: Path, tmp_path: Path
) -> None:
    result = _run(f"{agents}:CrashesOnT002", tmp_path / "logs", "--tasks", "t001,t002")
    assert result.exit_code == 0, result.output
    assert "agent errors: 1 of 2 episodes ended in an agent error" in result.stderr
    assert "KeyError: 't002'" in result.stderr
    assert "agent errors" in result.stdout and "1 of 2: counted as failures" in result.stdout


def test_fail_fast_stops_at_the_first_agent_error_and_resume_plays_the_rest(
    agents: Path, tmp_path: Path
) -> None:
    out = tmp_path / "logs"
    tasks = ("--tasks", "t001,t002,t003,t004", "--concurrency", "1")
    result = _run(f"{agents}:CrashesOnT002", out, *tasks, "--fail-fast")
    assert result.exit_code == 1, result.output
    assert "KeyError: 't002'" in result.stderr
    assert "--fail-fast stopped the run at the first agent error" in result.stderr
    assert "--fail-fast --resume" in result.stderr
    assert "agent: t002-crasher" not in result.stdout  # no table: the run did not finish
    assert {p.parent.name for p in out.rglob("*.jsonl")} == {"t001", "t002"}
    # the planned episodes it never started count as failed, said in one line, not one each
    scored = runner.invoke(evaluator, ["score", str(out)])
    never = [line for line in scored.stderr.splitlines() if "never started" in line]
    assert never == [
        "problem: 2 planned episodes count as failed: never started (t003 trial 0, t004 "
        "trial 0); taurec run --resume plays them"
    ], scored.stderr
    resumed = _run(f"{agents}:CrashesOnT002", out, *tasks, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "skipping 2 finished episodes" in resumed.stderr
    assert {p.parent.name for p in out.rglob("*.jsonl")} == {"t001", "t002", "t003", "t004"}


def test_run_agent_prints_the_count_and_first_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    class Crasher:
        label = "py-crasher"

        async def run(self, episode) -> None:
            raise ZeroDivisionError("in run_agent")

    report = run_agent(Crasher(), tasks=["t001"], out=tmp_path / "logs")
    assert [r.end_reason for r in report.results] == ["agent_error"]
    err = capsys.readouterr().err
    assert "agent errors: 1 of 1 episode ended in an agent error" in err
    assert "ZeroDivisionError: in run_agent" in err


def test_run_agent_fail_fast_stops_at_the_first_agent_error(tmp_path: Path) -> None:
    class CrashesFirst:
        label = "crashes-first"

        async def run(self, episode) -> None:
            raise RuntimeError("first")

    report = run_agent(
        CrashesFirst(), tasks=["t001", "t002"], out=tmp_path, concurrency=1, fail_fast=True,
        quiet=True,
    )  # fmt: skip
    assert report.failed_fast and len(report.results) == 1
