"""The rules `taurec run` and `run_agent()` share (runner/session.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from taurec.clients.agents.base import Episode
from taurec.clients.runner import RunRefused, run_agent
from taurec.clients.runner.session import PYTHON_NAMES, check_out


class Abstainer:
    label = "abstainer"

    async def run(self, episode: Episode) -> None:
        await episode.recommend(None)


def test_run_agent_prints_the_evaluator_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = run_agent(Abstainer(), tasks=["t001"], out=tmp_path / "logs")
    assert len(report.results) == 1
    shown = capsys.readouterr()
    assert "agent: abstainer" in shown.out and "pass^1" in shown.out


def test_run_agent_refuses_to_mix_two_runs_of_one_agent(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    run_agent(Abstainer(), tasks=["t001"], out=out, quiet=True)
    with pytest.raises(RunRefused, match=r"already holds 1 episode logs.*resume=True"):
        run_agent(Abstainer(), tasks=["t001"], out=out, quiet=True)
    assert len(list(out.rglob("*.jsonl"))) == 1


def test_run_agent_resumes_playing_only_what_is_missing(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    run_agent(Abstainer(), tasks=["t001", "t004"], out=out, quiet=True, concurrency=1)
    # what a kill before t004 started leaves: no log, and no start or end in the register
    (lost,) = out.rglob("t004/*.jsonl")
    lost.unlink()
    (register,) = out.rglob("run.register")
    register.write_bytes(b"".join(register.read_bytes().splitlines(keepends=True)[:-2]))
    report = run_agent(Abstainer(), tasks=["t001", "t004"], out=out, resume=True, quiet=True)
    assert [r.spec.task_id for r in report.results] == ["t004"]


def test_quiet_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_agent(Abstainer(), tasks=["t001"], out=tmp_path / "logs", quiet=True)
    shown = capsys.readouterr()
    assert shown.out == "" and shown.err == ""


def test_a_file_is_no_log_folder(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("hello")
    with pytest.raises(RunRefused, match=r"out .*README\.md is a file; expected a folder"):
        check_out(readme, PYTHON_NAMES)
    with pytest.raises(RunRefused, match=r"is under .*README\.md, which is a file"):
        check_out(readme / "logs", PYTHON_NAMES)


class Second(Abstainer):
    label = "second"


def test_the_table_is_of_this_run_without_an_earlier_runs_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "logs"
    run_agent(Abstainer(), tasks=["t001", "t004"], out=out, quiet=True)
    next(out.rglob("*.jsonl")).unlink()  # the earlier run now misses a planned episode
    capsys.readouterr()
    run_agent(Second(), tasks=["t001"], out=out)
    shown = capsys.readouterr()
    assert "agent: second" in shown.out and "agent: abstainer" not in shown.out
    assert "log missing" not in shown.err and "count as failures" not in shown.err


class _Quiet:
    label = "quiet"

    async def run(self, episode: object) -> None:  # pragma: no cover - never played
        return None


def test_run_agent_gives_an_agent_without_an_identity_its_class_and_code_digest() -> None:
    import hashlib

    from taurec.clients.runner.programmatic import identify

    agent = _Quiet()
    identify(agent)
    info = agent.agent_info  # type: ignore[attr-defined]
    assert info["kind"] == "custom" and info["settings"]["class"].endswith(":_Quiet")
    assert (
        info["settings"]["code_sha256"] == hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    )


def test_an_agent_that_reports_its_identity_keeps_it() -> None:
    from taurec.clients.runner.programmatic import identify

    agent = _Quiet()
    agent.agent_info = {"kind": "mine", "model": None, "settings": {}}  # type: ignore[attr-defined]
    identify(agent)
    assert agent.agent_info["kind"] == "mine"  # type: ignore[attr-defined]
