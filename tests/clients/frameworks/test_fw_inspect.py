"""The Inspect AI task (clients/frameworks/inspect_task.py): Inspect's mock model plays
whole episodes of every kind through a `taurec serve` subprocess (the solver's MCP session),
each sample's score is the evaluator's score of the episode's own taurec log, the Inspect
log links to that log, and the task is found by file path and through the entry point.

The mock's outputs carry their token usage: without it Inspect counts tokens with a
tiktoken encoding it would download."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra (inspect-ai) is not installed")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model

from taurec.clients.envs.scripted import ScriptedPolicy
from taurec.clients.frameworks.inspect_task import (
    LOG_KEY,
    agent_label,
    chosen_tasks,
    taurec_suite,
)
from taurec.evaluator.logs import score_file
from taurec.evaluator.resolver import Resolver
from taurec.tasks.suite import load_suite

ROOT = Path(__file__).resolve().parents[3]
MOCK = "mockllm/model"
ANSWER = "<answer>\\boxed{[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}</answer>"


def _usage(output: ModelOutput) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def _call(name: str, **arguments: Any) -> ModelOutput:
    return _usage(ModelOutput.for_tool_call(MOCK, name, arguments))


def _say(text: str) -> ModelOutput:
    return _usage(ModelOutput.from_content(MOCK, text))


def _mock(outputs: list[ModelOutput] | Callable[..., ModelOutput]) -> Model:
    return get_model(MOCK, custom_outputs=outputs)


def _scripted(kind: str) -> Model:
    """The mock model playing taurec's scripted policy on the last message it was shown."""
    policy = ScriptedPolicy(kind)

    def act(messages: list[Any], *_: Any) -> ModelOutput:
        action = policy.act(messages[-1].text)
        if isinstance(action, dict):
            return _call(action["name"], **action["arguments"])
        return _say(action)

    return _mock(act)


def _run(tmp_path: Path, model: Model, **task_args: Any) -> EvalLog:
    task_args.setdefault("log_dir", str(tmp_path / "taurec"))
    task_args.setdefault("limit", 1)
    [log] = inspect_eval(
        taurec_suite(**task_args), model=model, log_dir=str(tmp_path / "inspect"), display="none"
    )
    assert log.status == "success", log.error
    return log


def _evaluator(log: str, suite: str) -> Any:
    return score_file(Path(log), Resolver(suite=suite))


def _records(log: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(log).read_text().splitlines()]


# --- every kind, end to end ----------------------------------------------------------------


def test_a_ranking_sample_scores_the_evaluators_reward_of_its_log(tmp_path):
    model = _mock([_call("get_user_profile"), _say(ANSWER)])
    log = _run(tmp_path, model, suite="ranking:builtin")
    [sample] = log.samples
    score = sample.scores["taurec_score"]
    expected = _evaluator(sample.metadata[LOG_KEY], "ranking:builtin")
    assert score.value == pytest.approx(expected.reward)
    assert score.metadata["metrics"] == pytest.approx(dict(expected.metrics))
    assert score.metadata["end_reason"] == "recommended"
    assert score.metadata["passed"] == expected.passed
    records = _records(sample.metadata[LOG_KEY])
    calls = [r["name"] for r in records if r["type"] == "tool_call"]
    assert calls == ["get_user_profile", "submit_ranking"]


def test_each_model_call_is_logged_before_the_call_it_led_to_and_names_the_model(tmp_path):
    model = _mock([_call("get_user_profile"), _say(ANSWER)])
    [sample] = _run(tmp_path, model, suite="ranking:builtin").samples
    records = _records(sample.metadata[LOG_KEY])
    assert records[0]["agent"]["model"] == "mockllm/model"
    kinds = [r["type"] for r in records if r["type"] in ("model_call", "tool_call")]
    assert kinds == ["model_call", "tool_call", "model_call", "tool_call"]
    first, second = [r for r in records if r["type"] == "model_call"]
    assert first["model"] == "mockllm/model"
    assert first["usage"] == {"prompt_tokens": 1, "completion_tokens": 1}
    assert second["input_messages"] == 4  # system, opening, the first reply, its result
    score = _evaluator(sample.metadata[LOG_KEY], "ranking:builtin")
    assert score.agent_model == "mockllm/model" and score.model_usage["agent"]["calls"] == 2


def test_the_inspect_log_links_to_the_taurec_log(tmp_path):
    log = _run(tmp_path, _mock([_say(ANSWER)]), suite="ranking:builtin")
    [sample] = log.samples
    path = sample.metadata[LOG_KEY]
    assert Path(path).is_file() and Path(path).is_relative_to(tmp_path / "taurec")
    score = sample.scores["taurec_score"]
    assert score.metadata["log"] == path
    assert path in score.explanation
    assert sample.metadata["taurec_trial"] == 0
    assert len(list((tmp_path / "inspect").glob("*.eval"))) == 1


def test_the_model_starts_from_the_servers_opening_and_never_sees_episode_id(tmp_path):
    log = _run(tmp_path, _mock([_say(ANSWER)]), suite="ranking:builtin")
    [sample] = log.samples
    system, opening = sample.messages[:2]
    assert "Candidates (index. [id] title)" in opening.text
    assert "submit_ranking" in system.text
    assert "episode_id" not in system.text  # the prompt lists the offered tools
    started = _records(sample.metadata[LOG_KEY])[0]
    assert started["agent"]["label"] == "inspect:mockllm/model"


def test_a_dialogue_sample_says_text_to_the_user_and_recommends(tmp_path):
    item = load_suite("builtin").catalog.ids[0]
    outputs = [_say("Hello! What would you like to watch?"), _call("recommend", item_id=item)]
    log = _run(tmp_path, _mock(outputs), suite="builtin")
    [sample] = log.samples
    roles = [m.role for m in sample.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "tool"]
    assert sample.messages[3].text  # the user's reply to the message
    score = sample.scores["taurec_score"]
    expected = _evaluator(sample.metadata[LOG_KEY], "builtin")
    assert score.value == pytest.approx(expected.reward)
    assert score.metadata["end_reason"] == "recommended"
    assert score.answer == item


def test_a_dialogue_played_by_the_scripted_policy_matches_the_evaluator(tmp_path):
    log = _run(tmp_path, _scripted("recommendation"), suite="builtin")
    [sample] = log.samples
    expected = _evaluator(sample.metadata[LOG_KEY], "builtin")
    assert sample.scores["taurec_score"].value == pytest.approx(expected.reward)
    assert sample.scores["taurec_score"].metadata["end_reason"] == "recommended"


def test_a_stream_sample_plays_every_episode_with_tools(tmp_path):
    log = _run(tmp_path, _scripted("stream"), suite="stream:builtin", max_steps=200)
    [sample] = log.samples
    score = sample.scores["taurec_score"]
    expected = _evaluator(sample.metadata[LOG_KEY], "stream:builtin")
    assert score.value == pytest.approx(expected.reward)
    assert score.metadata["end_reason"] != "agent_error"
    task = load_suite("stream:builtin").get(sample.id)
    recommended = [
        m for m in sample.messages if m.role == "tool" and m.function == "recommend_item"
    ]
    assert len(recommended) == len(task.episodes)


# --- how an episode ends ------------------------------------------------------------------


def test_an_unreadable_ranking_answer_is_submitted_empty_and_scores_minus_one(tmp_path):
    log = _run(tmp_path, _mock([_say("I would rather not rank these.")]), suite="ranking:builtin")
    [sample] = log.samples
    assert sample.scores["taurec_score"].value == -1.0


def test_an_episode_open_after_max_steps_is_ended_as_agent_error(tmp_path):
    model = _mock([_call("get_user_profile")])
    log = _run(tmp_path, model, suite="ranking:builtin", max_steps=1)
    [sample] = log.samples
    score = sample.scores["taurec_score"]
    assert score.metadata["end_reason"] == "agent_error"
    end = _records(sample.metadata[LOG_KEY])[-1]
    assert end["type"] == "end" and "step limit (1 model calls)" in json.dumps(end)


def test_an_inspect_limit_ends_the_episode_and_the_sample_is_still_scored(tmp_path):
    model = _mock([_call("get_user_profile") for _ in range(5)])
    [log] = inspect_eval(
        taurec_suite(suite="ranking:builtin", limit=1, log_dir=str(tmp_path / "taurec")),
        model=model,
        message_limit=4,
        log_dir=str(tmp_path / "inspect"),
        display="none",
    )
    [sample] = log.samples
    assert sample.limit is not None and sample.limit.type == "message"
    assert sample.scores["taurec_score"].metadata["end_reason"] == "agent_error"
    end = _records(sample.metadata[LOG_KEY])[-1]
    assert end["type"] == "end" and "Message limit" in end["detail"]


def test_a_provider_that_cannot_be_reached_ends_the_episode_as_infra_error(tmp_path):
    def unreachable(*_: Any) -> ModelOutput:
        request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
        raise openai.APIConnectionError(request=request)

    taurec_logs = tmp_path / "taurec"
    [log] = inspect_eval(
        taurec_suite(suite="ranking:builtin", limit=1, log_dir=str(taurec_logs)),
        model=_mock(unreachable),
        log_dir=str(tmp_path / "inspect"),
        display="none",
    )
    assert log.status == "error"  # Inspect reports the sample's error as it is
    [path] = taurec_logs.rglob("*.jsonl")
    end = _records(str(path))[-1]
    assert end["reason"] == "infra_error"
    assert "APIConnectionError: Connection error." in end["detail"]
    assert _evaluator(str(path), "ranking:builtin").infra_error


def test_each_epoch_plays_the_next_trial(tmp_path):
    model = _mock([_say(ANSWER), _say(ANSWER)])
    [log] = inspect_eval(
        taurec_suite(suite="ranking:builtin", limit=1, log_dir=str(tmp_path / "taurec")),
        model=model,
        epochs=2,
        log_dir=str(tmp_path / "inspect"),
        display="none",
    )
    assert log.status == "success", log.error
    trials = sorted(s.metadata["taurec_trial"] for s in log.samples)
    assert trials == [0, 1]
    logs = {s.metadata[LOG_KEY] for s in log.samples}
    assert [Path(p).name.split("-")[0] for p in sorted(logs)] == ["trial0", "trial1"]


# --- the task's arguments -------------------------------------------------------------------


def test_tasks_pick_samples_by_id_in_the_order_given():
    suite = load_suite("ranking:builtin")
    assert [t.id for t in chosen_tasks(suite, "rank_002, rank_000", None)] == [
        "rank_002",
        "rank_000",
    ]
    assert [t.id for t in chosen_tasks(suite, None, 2)] == ["rank_000", "rank_001"]


def test_an_unknown_task_id_is_named_with_examples():
    with pytest.raises(ValueError, match=r"tasks: 'nope' not in suite .*such as rank_000"):
        taurec_suite(suite="ranking:builtin", tasks="nope")


@pytest.mark.parametrize("limit", [0, -1, 1.5])
def test_a_limit_below_one_task_is_refused(limit):
    with pytest.raises(ValueError, match="limit: expected a whole number of tasks"):
        taurec_suite(suite="ranking:builtin", limit=limit)


def test_an_unknown_suite_is_refused_with_the_suite_named():
    with pytest.raises(ValueError, match=r"^suite: .*no-such-suite"):
        taurec_suite(suite="no-such-suite")


def test_a_missing_catalog_is_refused_with_its_path(tmp_path):
    with pytest.raises(ValueError, match=r"^catalog: .*nothing\.json"):
        taurec_suite(suite="builtin", catalog=str(tmp_path / "nothing.json"))


def test_a_bad_server_setting_names_the_field():
    with pytest.raises(ValueError, match=r"^taurec server settings: simulator: Input should be"):
        taurec_suite(suite="builtin", simulator="telepathy")


def test_settings_that_clash_are_refused_in_one_line():
    with pytest.raises(
        ValueError,
        match=r"^taurec server settings: settings: simulator 'llm-sp' needs simulator_model",
    ):
        taurec_suite(suite="builtin", simulator="llm-sp")


def test_a_bad_agent_label_is_refused():
    with pytest.raises(ValueError, match=r"^label: agent label"):
        taurec_suite(suite="builtin", label="-no spaces-")


def test_an_unknown_rules_profile_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="rules: expected one of taurec, tau-rec; got 'lenient'"):
        taurec_suite(suite="builtin", rules="lenient")


def test_the_agent_label_is_the_model_unless_given():
    assert agent_label("openai/gpt 4o") == "inspect:openai/gpt-4o"
    assert agent_label("mockllm/model", "mine") == "mine"


# --- how Inspect finds the task ----------------------------------------------------------------


def test_the_task_runs_from_its_file_path(tmp_path):
    [log] = inspect_eval(
        f"{ROOT}/clients/frameworks/inspect_task.py@taurec_suite",
        task_args={"suite": "ranking:builtin", "limit": 1, "log_dir": str(tmp_path / "taurec")},
        model=_mock([_say(ANSWER)]),
        log_dir=str(tmp_path / "inspect"),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.samples[0].scores["taurec_score"].metadata["end_reason"] == "recommended"


ENTRY_POINT = 'taurec = "taurec.clients.frameworks.inspect_registry"'
PROGRAM = textwrap.dedent(
    """
    import sys
    from inspect_ai import eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    out = ModelOutput.from_content("mockllm/model", sys.argv[1])
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    [log] = eval(
        "taurec/taurec_suite",
        task_args={"suite": "ranking:builtin", "limit": 1, "log_dir": sys.argv[2]},
        model=get_model("mockllm/model", custom_outputs=[out]),
        log_dir=sys.argv[3],
        display="none",
    )
    print(log.status, log.samples[0].scores["taurec_score"].value)
    """
)


@pytest.mark.slow
def test_the_shipped_stand_in_model_plays_every_kind_offline(tmp_path):
    for suite, tasks in (("ranking:builtin", "rank_000"), ("builtin", "t001")):
        log = _run(tmp_path / suite, get_model("taurec/scripted"), suite=suite, tasks=tasks)
        [sample] = log.samples
        score = sample.scores["taurec_score"]
        assert score.metadata["end_reason"] == "recommended"
        assert score.value == _evaluator(sample.metadata[LOG_KEY], suite).reward


def test_an_unknown_stand_in_model_is_refused_naming_the_models():
    with pytest.raises(ValueError, match=r"'gpt' is not served here; expected one of scripted"):
        get_model("taurec/gpt")


def test_the_entry_point_line_makes_the_task_found_by_name(tmp_path):
    """`[project.entry-points.inspect_ai]` with ENTRY_POINT, as an installed distribution
    declares it, lets a fresh process resolve 'taurec/taurec_suite'."""
    dist = tmp_path / "entry" / "taurec_inspect_entry-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: taurec-inspect-entry\nVersion: 0\n"
    )
    (dist / "entry_points.txt").write_text("[inspect_ai]\n" + ENTRY_POINT.replace('"', "") + "\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "entry")}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, ANSWER, str(tmp_path / "taurec"), str(tmp_path / "i")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    status, value = done.stdout.split()[-2:]
    assert status == "success" and float(value) > -1
