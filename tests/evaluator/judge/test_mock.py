"""The mock judge (`evaluator judge --model mock`) runs the whole judge path offline, and
its scores are named as the mock's wherever they are shown; failed calls are counted, and
a run whose every call failed is an error naming the first."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import litellm
import pytest
from support.hang_guard import HANG_GUARD_S
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.evaluator.episodes.view import judge_view
from taurec.evaluator.judge.mock import MOCK_JUDGE_NAME, MOCK_SCORE, mock_reply
from taurec.evaluator.judge.prompt import JudgeScore, parse_reply
from taurec.evaluator.judge.rubrics import ASPECTS
from taurec.evaluator.judge.run import JudgeError, JudgeSettings, judge_logs
from taurec.evaluator.judge.store import read_judgements

runner = CliRunner()


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_each_aspects_mock_reply_is_read_as_its_score() -> None:
    for name, aspect in ASPECTS.items():
        score, explanation = parse_reply(mock_reply(name))
        assert score == MOCK_SCORE and explanation is not None
        assert explanation.startswith("mock judge") and aspect.title in explanation


def test_the_mock_judge_scores_every_dialogue_offline_into_a_signed_file(logs, no_keys):
    logs.run({"ta": 1, "tb": 1}, trials=1)
    result = runner.invoke(app, ["judge", str(logs.out), "--model", "mock"])
    assert result.exit_code == 0, result.output
    assert "10 judge calls made" in result.stderr and "cost $0.0000" in result.stderr
    assert "Provider List" not in result.output and "LiteLLM" not in result.output
    found = read_judgements(logs.out)  # checks the signature
    assert found.skipped == [] and len(found.scores) == 2
    scores = [s for aspects in found.scores.values() for s in aspects.values()]
    assert len(scores) == 10 and all(s.mean == MOCK_SCORE and s.model == "mock" for s in scores)


def test_the_report_names_the_mock_judge_beside_its_scores(logs, no_keys, tmp_path):
    logs.run({"ta": 1}, trials=1)
    judged = runner.invoke(app, ["judge", str(logs.out), "--model", "mock"])
    assert judged.exit_code == 0, judged.output
    out = tmp_path / "report.html"
    made = runner.invoke(app, ["report", str(logs.out), "-o", str(out), "--suite", logs.spec])
    assert made.exit_code == 0, made.output
    page = out.read_text(encoding="utf-8")
    assert page.count(f"<td>{MOCK_JUDGE_NAME}</td>") == len(ASPECTS)
    assert "Scores from the mock judge" in page


def test_the_viewer_names_the_mock_judge_and_no_other() -> None:
    view = judge_view(
        {
            "fluency": JudgeScore(3.0, 0.0, [3.0], 0, "mock"),
            "overall_sat": JudgeScore(4.0, 0.0, [4.0], 0, "openai/gpt-4o"),
        }
    )
    assert view is not None
    assert [row["model"] for row in view] == [MOCK_JUDGE_NAME, "openai/gpt-4o"]


def _failing(when: str | None = None) -> Any:
    """A completion that fails for prompts holding `when` (every prompt when None)."""
    original = litellm.completion

    def completion(**kwargs: Any) -> Any:
        text = kwargs["messages"][0]["content"]
        if when is None or when in text:
            raise ConnectionError("no route to the judge\nsecond line")
        return original(**kwargs, mock_response='{"score": 4}')

    return completion


def test_a_run_whose_every_call_failed_is_an_error_naming_the_first(logs) -> None:
    logs.episode("ta", 0, item="c1")
    settings = JudgeSettings(model="gpt-4o-mini", completion=_failing(), concurrency=1)
    with pytest.raises(JudgeError) as caught:
        judge_logs(logs.out, settings)
    assert str(caught.value) == (
        "all 5 judge calls to 'gpt-4o-mini' failed; the first: "
        "ConnectionError: no route to the judge second line"
    )


def test_the_command_exits_2_with_one_line_when_every_call_failed(logs, monkeypatch) -> None:
    logs.episode("ta", 0, item="c1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(litellm, "completion", _failing())
    result = runner.invoke(app, ["judge", str(logs.out), "--model", "openai/gpt-4o-mini"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: all 5 judge calls to 'openai/gpt-4o-mini' failed; the first: "
        "ConnectionError: no route to the judge second line"
    ]


def test_a_run_where_some_calls_failed_says_how_many(logs, monkeypatch) -> None:
    logs.episode("ta", 0, item="c1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(litellm, "completion", _failing(ASPECTS["fluency"].question))
    result = runner.invoke(app, ["judge", str(logs.out), "--model", "openai/gpt-4o-mini"])
    assert result.exit_code == 0, result.output
    assert "1 of 5 judge calls failed (the first: ConnectionError" in result.stderr
    (aspects,) = read_judgements(logs.out).scores.values()
    assert math.isnan(aspects["fluency"].mean) and aspects["overall_sat"].mean == 4.0


def test_a_missing_judge_key_is_told_without_importing_litellm(logs) -> None:
    logs.episode("ta", 0, item="c1")
    code = (
        "import sys\n"
        f"sys.argv = ['evaluator', 'judge', {str(logs.out)!r}, '--model', 'openai/gpt-4o']\n"
        "from taurec.evaluator.cli.main import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "print(code, 'litellm' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(logs.out),  # no .env of the working tree
        timeout=HANG_GUARD_S,
    )
    assert done.stdout.split() == ["2", "False"], done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: judge model 'openai/gpt-4o' needs OPENAI_API_KEY set in the environment"
    ]
