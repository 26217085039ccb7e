"""The custom agent in docs/agents.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


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
    # the example ends by running all 60 tasks; run it on three, into tmp_path
    code = code.replace('run_agent(FirstComedy(), trials=1, out="logs/first-comedy")', "")
    exec(compile(code, "readme_agent.py", "exec"), namespace)
    report = namespace["run_agent"](
        namespace["FirstComedy"](), tasks=["t001", "t002", "t005"], out=tmp_path
    )
    assert report.failure is None and len(report.results) == 3
    assert all(r.score is not None and not r.score.infra_error for r in report.results)
