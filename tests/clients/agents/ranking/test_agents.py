"""Ranking agents end to end: `taurec run` over a ranking suite (MCP in process), the
table, resume, logs; the LLM agent with a mocked model and a \\boxed answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client
from support.hang_guard import finishes
from support.ranking import write_ranking_suite
from typer.testing import CliRunner

from taurec.clients.agents.base import AgentSettings, Episode, outcome_of
from taurec.clients.agents.llm import LLMAgentSettings
from taurec.clients.agents.ranking.llm import RankingLLMAgent, make_ranking_llm_agent
from taurec.clients.agents.ranking.prompt import AnswerError, parse_boxed
from taurec.clients.agents.registry import default_label
from taurec.clients.cli.main import app
from taurec.evaluator.ranking.scoring import score_ranking_episode
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.ranking.rules import MAX_REPLY
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.format import Trajectory
from taurec.tasks.trajectory.reader import read_log

runner = CliRunner()


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(write_ranking_suite(tmp_path_factory.mktemp("rank") / "suite", n=4))


def _run(suite: str, out: Path, *args: str):
    return runner.invoke(app, ["run", "--suite", suite, "--out", str(out), "--trials", "1", *args])


def test_a_ranking_run_prints_hit_ndcg_and_reward(suite: str, tmp_path: Path):
    result = _run(suite, tmp_path / "logs", "--agent", "cf")
    assert result.exit_code == 0, result.output
    for column in ("hit@1", "hit@5", "ndcg@5", "hit@10", "ndcg@10", "reward"):
        assert column in result.stdout
    logs = list((tmp_path / "logs").rglob("*.jsonl"))
    assert len(logs) == 4
    header = read_log(logs[0]).header
    assert header is not None and header.kind == "ranking"


def test_a_ranking_run_resumes_with_nothing_left_to_play(suite: str, tmp_path: Path):
    assert _run(suite, tmp_path / "logs", "--agent", "random").exit_code == 0
    again = _run(suite, tmp_path / "logs", "--agent", "random", "--resume")
    assert again.exit_code == 0 and "nothing to play" in again.stderr


def test_the_oracle_reaches_the_top_reward(suite: str, tmp_path: Path):
    result = _run(suite, tmp_path / "logs", "--agent", "oracle")
    assert result.exit_code == 0, result.output
    assert "reward                     │ 1.1000" in result.stdout


def test_the_scripted_agent_uses_tools_within_the_budget(suite: str, tmp_path: Path):
    result = _run(suite, tmp_path / "logs", "--agent", "scripted")
    assert result.exit_code == 0, result.output
    assert "invalid answers            │ 0.0000" in result.stdout
    for log in (tmp_path / "logs").rglob("*.jsonl"):
        names = [e["name"] for e in read_log(log).events if e["type"] == "tool_call"]
        assert 1 < len(names) <= 11 and names[-1] == "submit_ranking"


def test_an_agent_the_kind_lacks_is_refused(suite: str, tmp_path: Path):
    result = _run(suite, tmp_path / "logs", "--agent", "cf", "--dry-run")
    assert result.exit_code == 0
    bad = runner.invoke(app, ["run", "--agent", "cf", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "unknown agent 'cf' for 'recommendation' tasks" in bad.stderr


def test_boxed_indices_are_one_based_candidate_positions():
    assert parse_boxed("<answer>\\boxed{[2, 1]}</answer>", ["a", "b", "c"]) == ["b", "a"]
    with pytest.raises(AnswerError, match="'4' is not a candidate index"):
        parse_boxed("\\boxed{[4]}", ["a", "b", "c"])


@pytest.mark.parametrize("part", ["\u00b2", "1\u00b2", "\u0663", "\uff11", "9" * 5000, "+1", "1.0"])
def test_a_non_ascii_or_odd_index_is_an_answer_error_naming_it(part: str):
    with pytest.raises(AnswerError, match="is not a candidate index") as raised:
        parse_boxed(f"\\boxed{{[1, {part}]}}", ["a", "b", "c"])
    shown = part if len(part) <= 20 else part[:20] + "..."
    assert f"{shown!r} is not a candidate index" in str(raised.value)


class _Script:
    """litellm's own mock path, one scripted step per call: text, or a list of tool calls."""

    def __init__(self, *steps: Any) -> None:
        self.steps = list(steps)
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, **kwargs: Any) -> Any:
        import litellm

        self.requests.append(kwargs)
        step = self.steps.pop(0)
        if isinstance(step, str):
            return await litellm.acompletion(**kwargs, mock_response=step)
        return await litellm.acompletion(**kwargs, mock_response="", mock_tool_calls=step)


async def _play_llm(suite: str, tmp_path: Path, script: _Script, retries: int = 0) -> Path:
    settings = ServerSettings(suite=suite, log_dir=tmp_path, run_label="llm-rank")
    task = load_suite(suite).tasks[0]
    async with Client(build_server(settings)) as client:
        tools = (await client.list_tools()).tools
        started = outcome_of(
            await client.call_tool("start_episode", {"task_id": task.id, "agent_label": "llm"})
        )
        episode = Episode(
            client=client,
            episode_id=str(started.data["episode_id"]),
            task_id=task.id,
            opening=str(started.data["opening"]),
            tools=tools,
        )
        agent = RankingLLMAgent(LLMAgentSettings(model="gpt-4o-mini", completion=script))
        agent.answer_retries = retries
        await agent.run(episode)
    (log,) = tmp_path.rglob("*.jsonl")
    return log


async def test_the_llm_agent_turns_a_boxed_answer_into_submit_ranking(
    suite: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    profile = [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "get_user_profile", "arguments": "{}"},
        }
    ]
    script = _Script(
        profile, "Thinking... <answer>\\boxed{[3, 1, 2, 4, 5, 6, 7, 8, 9, 10]}</answer>"
    )
    log = await _play_llm(suite, tmp_path, script)
    calls = [e for e in read_log(log).events if e["type"] == "tool_call"]
    task = load_suite(suite).tasks[0]
    c = task.candidates
    assert [e["name"] for e in calls] == ["get_user_profile", "submit_ranking"]
    assert calls[-1]["arguments"]["ranking"] == [c[2], c[0], c[1], *c[3:10]]
    system = script.requests[0]["messages"][0]["content"]
    assert system.startswith(
        "You are an helpful recommendation system assistant equipped with external tools"
    )
    assert "<tools>" in system and "submit_ranking" in system
    events = read_log(log).events
    models = [e for e in events if e["type"] == "model_call"]  # both replies, logged
    assert [m["caller"] for m in models] == ["agent", "agent"]
    assert models[0]["output"]["tool_calls"][0]["function"]["name"] == "get_user_profile"
    assert "boxed" in models[1]["output"]["content"] and models[1]["input_messages"] == 4
    assert [e["type"] for e in events].index("model_call") < events.index(calls[0])


async def test_the_grpo_export_keeps_every_model_turns_text(
    suite: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from taurec.evaluator.ranking.export import grpo_groups
    from taurec.tasks.trajectory.format import Trajectory

    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    profile = [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "get_user_profile", "arguments": "{}"},
        }
    ]
    answer = "I weighed the profile. <answer>\\boxed{[3, 1, 2, 4, 5, 6, 7, 8, 9, 10]}</answer>"
    log = await _play_llm(suite, tmp_path, _Script(profile, answer))
    parsed = read_log(log)
    assert parsed.header is not None
    task = load_suite(suite).tasks[0]
    trajectory = Trajectory(header=parsed.header, events=parsed.events)
    (group,) = grpo_groups([("llm", task, trajectory, 0.0)])
    turns = group["rollouts"][0]["completion"]
    assert [t["role"] for t in turns] == ["assistant", "tool", "assistant", "tool"]
    assert turns[0]["tool_calls"][0]["function"]["name"] == "get_user_profile"
    assert turns[1]["masked"] and "tool_calls" not in turns[1]
    assert turns[2]["content"] == answer and turns[2]["input"]


def _submission(log: Path) -> dict[str, Any]:
    return next(
        e["arguments"]
        for e in read_log(log).events
        if e["type"] == "tool_call" and e["name"] == "submit_ranking"
    )


def _score(suite: str, log: Path) -> Any:
    parsed = read_log(log)
    assert parsed.header is not None
    task = load_suite(suite).get(parsed.header.task_id)
    return score_ranking_episode(task, Trajectory(header=parsed.header, events=parsed.events))


async def test_a_final_reply_without_an_answer_scores_minus_one_with_the_reply_logged(
    suite: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    script = _Script("I am not sure yet.", "\\boxed{[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}")
    log = await _play_llm(suite, tmp_path, script)
    assert len(script.requests) == 1  # no second chance: AgenticRec's -1
    assert _submission(log) == {"ranking": [], "reply": "I am not sure yet."}
    score = _score(suite, log)
    assert score.reward == -1.0 and score.metrics["answer_retries"] == 0


async def test_with_answer_retries_a_reply_without_an_answer_gets_a_note_and_is_logged(
    suite: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    script = _Script("I am not sure yet.", "\\boxed{[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}")
    log = await _play_llm(suite, tmp_path, script, retries=1)
    assert "no \\boxed{[...]} answer found" in script.requests[1]["messages"][-1]["content"]
    submitted = _submission(log)
    assert submitted["rejected_replies"] == ["I am not sure yet."]
    assert len(submitted["ranking"]) == 10
    score = _score(suite, log)
    assert score.metrics["answer_retries"] == 1 and score.metrics["valid"] == 1.0


async def test_a_reply_longer_than_the_log_takes_is_cut_not_lost(
    suite: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    answer = "\\boxed{[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}"
    log = await _play_llm(suite, tmp_path, _Script("x" * (MAX_REPLY + 10) + answer))
    submitted = _submission(log)
    assert len(submitted["ranking"]) == 10 and len(submitted["reply"]) == MAX_REPLY
    assert _score(suite, log).metrics["valid"] == 1.0


def test_answer_retries_is_an_option_of_the_llm_agent_only(suite: str, tmp_path: Path):
    bad = _run(suite, tmp_path / "x", "--agent", "random", "--answer-retries", "1")
    assert bad.exit_code == 2
    assert "--answer-retries does not apply to --agent random on a ranking suite" in bad.stderr
    ok = _run(
        suite, tmp_path / "y", "--agent", "llm", "--model", "mock", "--answer-retries", "2",
        "--dry-run",
    )  # fmt: skip
    assert ok.exit_code == 0, ok.output
    # runs with retries are never pooled with runs without: the label says so
    settings = AgentSettings(model="m", temperature=0.0, options={"answer_retries": 2})
    assert default_label("llm", settings) == "m@t0+answer_retries=2"
    agent = make_ranking_llm_agent(settings)
    assert agent.label == "m@t0+answer_retries=2" and agent.answer_retries == 2


def test_evaluator_export_writes_grpo_groups_and_ppr_pairs_from_run_logs(
    suite: str, tmp_path: Path
):
    from taurec.evaluator.cli.main import app as evaluator_app

    assert _run(suite, tmp_path / "logs", "--agent", "random").exit_code == 0
    grpo = runner.invoke(
        evaluator_app, ["export", str(tmp_path / "logs"), "--format", "grpo", "--suite", suite]
    )
    assert grpo.exit_code == 0, grpo.output
    assert "for training, mine a suite of the train part" in grpo.stderr
    groups = [orjson.loads(line) for line in grpo.stdout.splitlines()]
    assert len(groups) == 4 and all(g["group_size"] == 1 for g in groups)
    ppr = runner.invoke(
        evaluator_app, ["export", str(tmp_path / "logs"), "--format", "ppr", "--suite", suite]
    )
    assert ppr.exit_code == 0, ppr.output
    pairs = [orjson.loads(line) for line in ppr.stdout.splitlines()]
    assert all(p["answer"] in ("A", "B") and p["positive"] for p in pairs)


def test_exporting_rollouts_of_a_train_part_suite_needs_no_note(tmp_path: Path):
    from taurec.evaluator.cli.main import app as evaluator_app

    suite = str(write_ranking_suite(tmp_path / "train", n=2, split="train"))
    assert _run(suite, tmp_path / "logs", "--agent", "random").exit_code == 0
    grpo = runner.invoke(
        evaluator_app, ["export", str(tmp_path / "logs"), "--format", "grpo", "--suite", suite]
    )
    assert grpo.exit_code == 0, grpo.output
    assert "note:" not in grpo.stderr and len(grpo.stdout.splitlines()) == 2


def test_exporting_only_recommendation_logs_skips_them_and_exports_nothing(tmp_path: Path):
    from taurec.evaluator.cli.main import app as evaluator_app

    assert (
        runner.invoke(
            app, ["run", "--tasks", "t001", "--trials", "1", "--out", str(tmp_path / "r")]
        ).exit_code
        == 0
    )
    result = runner.invoke(evaluator_app, ["export", str(tmp_path / "r"), "--format", "grpo"])
    assert result.exit_code == 2
    assert "skipped 1 recommendation log: grpo exports ranking episodes" in result.stderr
    assert "no ranking episodes under" in result.stderr


@pytest.mark.parametrize(
    "reply",
    [
        "\\boxed{[" * 250_000,  # unclosed starts: a pattern search re-read the rest at each
        "\\boxed{[" * 250_000 + "]" + " " * 1_000_000,
        "\\boxed{ " * 250_000,
        "\\boxed{[1" + "," * 2_000_000,
    ],
    ids=["unclosed", "one-late-bracket", "spaces", "commas"],
)
def test_a_hostile_reply_of_megabytes_is_read_in_linear_time(reply: str):
    """2 MB of hostile reply (the LLM ranking agent reads replies uncapped): a quadratic
    reading took 17 s at 200,000 characters, so days here; a linear one, well under a
    second. The hang guard only catches the quadratic one."""

    def parse() -> str:
        try:
            return str(parse_boxed(reply, ["a", "b", "c"]))
        except AnswerError as exc:
            return str(exc)

    assert finishes(parse, "parse_boxed on 2 MB") != ""
