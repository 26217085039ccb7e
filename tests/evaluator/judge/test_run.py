"""Judging a log folder with litellm's mocked replies: cache, storage, failures, usage."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import math
from pathlib import Path
from typing import Any

import litellm
import orjson
import pytest
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.evaluator.files import find_logs
from taurec.evaluator.judge import run as judge_run
from taurec.evaluator.judge.run import JudgeError, JudgeSettings, judge_logs
from taurec.evaluator.judge.store import judge_path, load_judgements

MODEL = "gpt-4o-mini"  # in litellm's price map, so mocked calls have a cost


class Mocked:
    """litellm.completion answering every call with `reply` through litellm's mock path."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls = 0

    def __call__(self, **kwargs: Any) -> Any:
        self.calls += 1
        return litellm.completion(**kwargs, mock_response=self.reply)


def _settings(completion: Mocked, **kw: Any) -> JudgeSettings:
    return JudgeSettings(model=MODEL, completion=completion, **kw)


def test_each_dialogue_and_aspect_is_one_call_and_scores_3(logs):
    logs.run({"ta": 1, "tb": 1, "tc": 0}, trials=1)
    mocked = Mocked('{"score": 3, "score_explanation": "average"}')
    report = judge_logs(logs.out, _settings(mocked))
    assert mocked.calls == 3 * 5
    assert {s.mean for aspects in report.scores.values() for s in aspects.values()} == {3.0}
    assert report.prompt_tokens > 0 and report.cost_usd is not None and report.cost_usd > 0


def test_a_reply_without_a_score_is_nan_and_counted(logs):
    logs.episode("ta", 0, item="c1")
    report = judge_logs(logs.out, _settings(Mocked("no idea"), aspects=("fluency",)))
    (aspects,) = report.scores.values()
    assert math.isnan(aspects["fluency"].mean)
    assert report.failures == 1


def test_samples_give_mean_and_spread(logs):
    logs.episode("ta", 0, item="c1")
    replies = iter(['{"score": 2}', '{"score": 4}', "garbled"])

    def completion(**kwargs: Any) -> Any:
        return litellm.completion(**kwargs, mock_response=next(replies))

    settings = JudgeSettings(
        model=MODEL, completion=completion, aspects=("overall_sat",), samples=3, concurrency=1
    )
    (aspects,) = judge_logs(logs.out, settings).scores.values()
    score = aspects["overall_sat"]
    assert (score.mean, score.spread, score.failures) == (3.0, 1.0, 1)


def test_a_rerun_answers_from_the_cache_without_calls(logs):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    judge_logs(logs.out, _settings(Mocked('{"score": 4}')))
    again = Mocked('{"score": 1}')
    report = judge_logs(logs.out, _settings(again))
    assert again.calls == 0 and report.cached == 15
    assert {s.mean for a in report.scores.values() for s in a.values()} == {4.0}


def test_a_changed_instruction_around_the_dialogue_is_asked_anew(logs, monkeypatch):
    logs.episode("ta", 0, item="c1")
    judge_logs(logs.out, _settings(Mocked('{"score": 4}'), aspects=("fluency",)))
    original = judge_run.prompt
    monkeypatch.setattr(judge_run, "prompt", lambda turns, a: original(turns, a) + "\nBe strict.")
    again = Mocked('{"score": 2}')
    report = judge_logs(logs.out, _settings(again, aspects=("fluency",)))
    assert again.calls == 1 and report.cached == 0
    (aspects,) = report.scores.values()
    assert aspects["fluency"].samples == [2.0]


def test_more_samples_ask_only_for_the_new_ones(logs):
    logs.episode("ta", 0, item="c1")
    judge_logs(logs.out, _settings(Mocked('{"score": 4}'), aspects=("fluency",)))
    more = Mocked('{"score": 2}')
    report = judge_logs(logs.out, _settings(more, aspects=("fluency",), samples=2))
    assert more.calls == 1
    (aspects,) = report.scores.values()
    assert aspects["fluency"].samples == [4.0, 2.0]


def test_judgements_are_stored_beside_the_logs_and_load_back(logs):
    logs.episode("ta", 0, item="c1")
    judge_logs(logs.out, _settings(Mocked('{"score": 5}')))
    path = judge_path(logs.out, MODEL)
    assert path.parent == logs.out / "judge" and path.name.endswith(".judge.json")
    loaded = load_judgements(logs.out)
    (episode,) = loaded
    assert episode == "agentA-ta-0"
    assert set(loaded[episode]) == {
        "rec_relevance",
        "com_style",
        "fluency",
        "conv_flow",
        "overall_sat",
    }
    assert loaded[episode]["com_style"].mean == 5.0 and loaded[episode]["com_style"].model == MODEL


def test_the_judge_file_is_never_taken_for_a_log(logs):
    logs.episode("ta", 0, item="c1")
    judge_logs(logs.out, _settings(Mocked('{"score": 5}')))
    assert all(p.suffix == ".jsonl" and "judge" not in p.parts for p in find_logs([logs.out]))
    assert len(find_logs([logs.out])) == 1


def test_logs_without_a_dialogue_are_skipped_and_named(logs):
    path = logs.episode("ta", 0, item="c1")
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    kept = [r for r in lines if r["type"] != "agent_message"]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in kept))
    mocked = Mocked('{"score": 3}')
    report = judge_logs(logs.out, _settings(mocked))
    assert mocked.calls == 0 and [s.path for s in report.skipped] == [str(path)]


def test_missing_credentials_stop_before_any_call(logs, monkeypatch):
    logs.episode("ta", 0, item="c1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    called = Mocked('{"score": 3}')
    monkeypatch.setattr(litellm, "completion", called)
    with pytest.raises(JudgeError, match="OPENAI_API_KEY"):
        judge_logs(logs.out, JudgeSettings(model=MODEL))
    assert called.calls == 0


def test_a_local_providers_model_is_not_asked_for_a_base_url(logs, monkeypatch):
    logs.episode("ta", 0, item="c1")
    monkeypatch.delenv("OLLAMA_API_BASE", raising=False)
    called = Mocked('{"score": 3}')
    original = litellm.completion

    def completion(**kwargs: Any) -> Any:
        called.calls += 1
        return original(**kwargs, mock_response=called.reply)

    monkeypatch.setattr(litellm, "completion", completion)
    report = judge_logs(logs.out, JudgeSettings(model="ollama/llama3", concurrency=1))
    assert called.calls > 0 and report.call_errors == 0


def test_a_refused_key_stops_the_run(logs):
    logs.episode("ta", 0, item="c1")

    def refuse(**kwargs: Any) -> Any:
        raise litellm.AuthenticationError("bad key", llm_provider="openai", model=MODEL)

    with pytest.raises(JudgeError, match="refused the credentials"):
        judge_logs(logs.out, JudgeSettings(model=MODEL, completion=refuse, concurrency=1))


# --- the command ---------------------------------------------------------------------------

runner = CliRunner()


@pytest.fixture
def mocked_litellm(monkeypatch: pytest.MonkeyPatch) -> Mocked:
    """litellm.completion answering {"score": 3}; a key set so the credential check passes."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    original = litellm.completion
    mocked = Mocked('{"score": 3}')

    def completion(**kwargs: Any) -> Any:
        mocked.calls += 1
        return original(**kwargs, mock_response=mocked.reply)

    monkeypatch.setattr(litellm, "completion", completion)
    return mocked


def _score_json(logs: Any) -> dict[str, Any]:
    result = runner.invoke(app, ["score", str(logs.out), "--suite", logs.spec, "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    doc.pop("evaluator_version")
    return doc


def test_judging_does_not_change_the_deterministic_scores(logs, mocked_litellm):
    logs.run({"ta": 1, "tb": 0, "tc": 1}, trials=2)
    before = _score_json(logs)
    result = runner.invoke(app, ["judge", str(logs.out), "--model", MODEL])
    assert result.exit_code == 0, result.output
    assert mocked_litellm.calls == 6 * 5
    assert _score_json(logs) == before


def test_the_command_reports_calls_tokens_and_cost(logs, mocked_litellm):
    logs.episode("ta", 0, item="c1")
    result = runner.invoke(app, ["judge", str(logs.out), "--model", MODEL, "--samples", "2"])
    assert result.exit_code == 0, result.output
    assert "10 judge calls made" in result.output and "cost $" in result.output
    again = runner.invoke(app, ["judge", str(logs.out), "--model", MODEL, "--samples", "2"])
    assert "0 judge calls made" in again.output and "10 answers reused" in again.output


def test_an_unknown_aspect_exits_2_with_one_line(logs, mocked_litellm):
    logs.episode("ta", 0, item="c1")
    result = runner.invoke(
        app, ["judge", str(logs.out), "--model", MODEL, "--aspects", "fluency,charm"]
    )
    assert result.exit_code == 2
    assert "unknown judge aspect 'charm'" in result.output
    assert mocked_litellm.calls == 0


def test_missing_credentials_exit_2_naming_the_variable(logs, monkeypatch):
    logs.episode("ta", 0, item="c1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = runner.invoke(app, ["judge", str(logs.out), "--model", MODEL])
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.output


def test_the_judge_folder_is_beside_the_logs(logs, mocked_litellm):
    logs.episode("ta", 0, item="c1")
    runner.invoke(app, ["judge", str(logs.out), "--model", "openai/gpt-4o-mini"])
    assert [p.name for p in Path(logs.out, "judge").iterdir()] == ["openai_gpt-4o-mini.judge.json"]


def test_a_forged_cache_is_not_reused_nor_signed_anew(logs):
    logs.episode("ta", 0, item="c1")
    judge_logs(logs.out, _settings(Mocked('{"score": 2}'), aspects=("fluency",)))
    path = judge_path(logs.out, MODEL)
    forged = orjson.loads(path.read_bytes())
    for answer in forged["calls"].values():
        answer["score"] = 5.0  # the cache keys are public: a forger can compute them
    del forged["signature"]
    path.write_bytes(orjson.dumps(forged))
    again = Mocked('{"score": 2}')
    report = judge_logs(logs.out, _settings(again, aspects=("fluency",)))
    assert again.calls == 1 and report.cached == 0
    assert report.discarded is not None and str(path) in report.discarded
    (aspects,) = load_judgements(logs.out).values()
    assert aspects["fluency"].mean == 2.0


def test_a_folder_with_no_dialogue_to_judge_exits_2_saying_why(logs, mocked_litellm, tmp_path):
    path = logs.episode("ta", 0, item="c1")
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    kept = [r for r in lines if r["type"] != "agent_message"]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in kept))
    result = runner.invoke(app, ["judge", str(logs.out), "--model", MODEL])
    assert result.exit_code == 2 and mocked_litellm.calls == 0
    assert "none of its 1 logs holds a dialogue to judge" in result.output
    assert "episode without user and agent messages" in result.output
    (tmp_path / "empty").mkdir()
    empty = runner.invoke(app, ["judge", str(tmp_path / "empty"), "--model", MODEL])
    assert empty.exit_code == 2 and "no episode logs found" in empty.output
