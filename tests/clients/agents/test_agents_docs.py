"""The custom agent in docs/agents.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "agents.md"


def test_the_documented_custom_agent_plays_and_is_scored(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    (code,) = [b for b in blocks if "class GenreAgent" in b]
    assert len(code.splitlines()) <= 40
    namespace: dict = {"__name__": "my_agent"}
    exec(compile(code, "my_agent.py", "exec"), namespace)
    report = namespace["run_agent"](
        namespace["GenreAgent"](), tasks=["t001", "t004", "t015"], out=tmp_path
    )
    assert report.failure is None and len(report.results) == 3
    assert all(r.score is not None and not r.score.infra_error for r in report.results)
    assert any(r.passed for r in report.results)


README = DOC.parents[1] / "README.md"


def test_the_readme_custom_agent_plays_and_is_scored(tmp_path: Path) -> None:
    (code,) = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(code.splitlines()) <= 30
    namespace: dict = {"__name__": "readme_agent"}
    # the example runs all 60 tasks when run as a script; run it on three, into tmp_path
    exec(compile(code, "readme_agent.py", "exec"), namespace)
    report = namespace["run_agent"](
        namespace["FirstComedy"](), tasks=["t001", "t002", "t005"], out=tmp_path
    )
    assert report.failure is None and len(report.results) == 3
    assert all(r.score is not None and not r.score.infra_error for r in report.results)


def test_the_readme_custom_agent_runs_from_the_cli_as_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from taurec.clients.cli.main import app

    (code,) = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    agent_file = tmp_path / "my_agents.py"
    agent_file.write_text(code)
    monkeypatch.chdir(tmp_path)  # where the example's own run_agent call would write
    args = ["run", "--agent", f"{agent_file}:FirstComedy", "--tasks", "t001", "--trials", "1"]
    result = CliRunner().invoke(app, [*args, "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    assert "agent: first-comedy" in result.stdout
    assert not (tmp_path / "logs" / "first-comedy").exists(), "importing it ran nothing"
