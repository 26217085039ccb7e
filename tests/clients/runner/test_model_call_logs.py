"""Every model call of a run is in its log: the LLM agent's (its client sends them with its
next tool call), the LLM user's and the LLM NLU's (the server's own), each with its
model, settings, the messages sent (in the run's prompt store), the completion, tokens,
cost and time, inside the log's hash chain; and the judge's in its signed judge file.
Every model is litellm's mock (`mock_response`), offline."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import litellm
import orjson
import pytest
from typer.testing import CliRunner

from taurec.clients.agents.llm import LLMAgent, LLMAgentSettings
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.cli.main import app as evaluator_app
from taurec.evaluator.judge.run import JudgeSettings, judge_logs
from taurec.evaluator.judge.store import JudgeFile
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.model_calls import episode_store, find_store, read_store, sha256_of
from taurec.tasks.trajectory.reader import read_log

MODEL = "openai/gpt-4o-mini"  # priced in litellm's local map: calls have a cost
AGENT_SAYS = "Which kind of film are you in the mood for tonight?"
USER_SAYS = "I would love a Western tonight."
STEPS = 3


def _answer(messages: list[dict[str, Any]]) -> str:
    """The mocked reply of the server's models: acts for the classifiers, else words."""
    prompt = str(messages[-1].get("content", ""))
    if "ASSISTANT (a movie recommender)" in prompt:
        return "elicit(genres)"
    if prompt.rstrip().endswith("ACTS:"):
        return 'disclose(genres="Western")'
    return USER_SAYS


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[dict], dict]]:
    """One episode with every model mocked, litellm's completion functions counting the
    calls made (the server's answered by `mock_response`); the log, its events and the
    counts."""
    folder = tmp_path_factory.mktemp("model-calls")
    made = {"server": 0, "agent": 0}
    sync, not_sync = litellm.completion, litellm.acompletion

    def completion(**kwargs: Any) -> Any:
        if "mock_response" not in kwargs:  # the judge's mock brings its own
            made["server"] += 1
            kwargs["mock_response"] = _answer(kwargs["messages"])
        return sync(**kwargs)

    async def acompletion(**kwargs: Any) -> Any:
        made["agent"] += 1
        return await not_sync(**kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)  # the LLM user's reply cache goes here
        patch.setattr(litellm, "completion", completion)
        patch.setattr(litellm, "acompletion", acompletion)
        path = _run(folder / "logs")
        yield path, read_log(path).events, made


def _run(out: Path) -> Path:
    settings = ServerSettings(
        log_dir=out,
        run_label="mocked",
        simulator="llm-sp",
        simulator_model=MODEL,
        nlu_model=MODEL,
    )
    agent = LLMAgent(
        LLMAgentSettings(
            model=MODEL,
            label="mocked-llm",
            max_steps=STEPS,
            litellm_kwargs={"mock_response": AGENT_SAYS, "seed": 7},
        )
    )
    runner = Runner(agent, Connection("inproc", settings), out, "mocked-llm", handle_signals=False)
    anyio.run(runner.run, plan(["t001"], 1))
    (path,) = out.rglob("*.jsonl")
    return path


@pytest.fixture
def logged(run: tuple[Path, list[dict], dict]) -> tuple[Path, list[dict]]:
    return run[0], run[1]


@pytest.fixture
def models(run: tuple[Path, list[dict], dict]) -> dict[str, int]:
    return run[2]


def _calls(events: list[dict], caller: str) -> list[dict]:
    return [e for e in events if e["type"] == "model_call" and e["caller"] == caller]


def _sent(path: Path, event: dict) -> list[Any]:
    """The messages a model_call event sent, from the prompt store, each hash checked."""
    store_path = find_store(path)
    assert store_path is not None
    store = read_store(store_path, 2**30)
    assert store.problems == []
    hashes = store.messages(event["input"])
    assert hashes is not None and len(hashes) == event["input_messages"]
    return [store.contents[h] for h in hashes]


def test_the_header_names_the_agents_and_the_simulators_model_and_settings(logged) -> None:
    path, _ = logged
    header = orjson.loads(path.read_bytes().split(b"\n", 1)[0])
    assert header["agent"]["kind"] == "llm" and header["agent"]["model"] == MODEL
    assert (
        header["agent"]["settings"]["temperature"] == 0 and header["agent"]["settings"]["seed"] == 7
    )
    assert header["simulator"]["model"] == MODEL


def test_every_agent_call_is_logged_with_what_it_sent_and_got(logged, models) -> None:
    path, events = logged
    calls = _calls(events, "agent")
    assert len(calls) == models["agent"] == STEPS
    opening = next(e["text"] for e in events if e["type"] == "user_message")
    for n, call in enumerate(calls):
        sent = _sent(path, call)
        assert sent[0]["role"] == "system" and "taurec" in sent[0]["content"]
        assert sent[1] == {"role": "user", "content": opening}
        assert len(sent) == 2 + 2 * n  # each step adds the agent's line and the reply
        assert call["output"]["content"] == AGENT_SAYS
        assert call["model"] == MODEL and call["settings"] == {"seed": 7, "temperature": 0.0}
        assert call["usage"]["prompt_tokens"] > 0 and call["usage"]["cost_usd"] > 0
        assert call["latency_ms"] >= 0
    said = [e["seq"] for e in events if e["type"] == "agent_message"]
    assert all(c["seq"] < s for c, s in zip(calls, said, strict=False))  # before what it caused


def test_every_llm_user_and_nlu_call_is_logged(logged, models) -> None:
    path, events = logged
    user, nlu = _calls(events, "user"), _calls(events, "nlu")
    asked = [c for c in user + nlu if not c["cache_hit"]]  # the rest: the reply cache's
    assert len(asked) == models["server"] > 0 and len(asked) < len(user + nlu)
    assert {c["purpose"] for c in nlu} == {"acts:agent"}
    assert len(nlu) == STEPS  # one reading of each agent message
    replies = [c for c in user if not c["purpose"].startswith("acts")]
    assert replies and all(c["output"]["content"] == USER_SAYS for c in replies)
    header = orjson.loads(path.read_bytes().split(b"\n", 1)[0])
    for call in user + nlu:
        sent = _sent(path, call)
        assert sent and all(m["role"] in ("system", "user", "assistant") for m in sent)
        assert call["model"] == MODEL and call["output"]["content"]
    for call in asked:
        assert call["usage"]["completion_tokens"] > 0 and call["latency_ms"] >= 0
    assert {c["settings"]["seed"] for c in user} == {header["seed"]}  # each trial its own


def test_the_log_verifies_and_the_report_sums_tokens_and_cost_per_caller(logged) -> None:
    path, events = logged
    out = path.parents[2]
    result = CliRunner().invoke(evaluator_app, ["score", "--verify", str(out), "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert doc["excluded"] == []
    (group,) = doc["groups"]
    usage = group["model_usage"]
    assert usage["agent"]["calls"] == STEPS and usage["agent"]["source"] == "model_call events"
    logged_in = sum(c["usage"]["prompt_tokens"] for c in _calls(events, "agent"))
    assert usage["agent"]["prompt_tokens"] == logged_in
    assert usage["agent"]["cost_usd"] == pytest.approx(
        sum(c["usage"]["cost_usd"] for c in _calls(events, "agent"))
    )
    assert usage["user"]["calls"] == len(_calls(events, "user"))
    assert usage["nlu"]["calls"] == STEPS


def test_an_altered_store_entry_shows_as_altered_never_as_what_was_sent(
    logged, tmp_path: Path
) -> None:
    path, _ = logged
    found = find_store(path)
    assert found is not None
    store_path = tmp_path / found.name  # a copy: the other tests read the original
    store_path.write_text(found.read_text().replace(USER_SAYS, "I would hate a Western."))
    store = read_store(store_path, 2**30)
    assert store.problems and all("does not match its sha256" in p for p in store.problems)
    assert all(sha256_of(v) == h for h, v in store.contents.items())


def test_the_judges_calls_are_in_its_signed_file(logged, tmp_path: Path) -> None:
    path, _ = logged
    folder = tmp_path / "judged"
    (folder / "t001").mkdir(parents=True)
    (folder / "t001" / path.name).write_bytes(path.read_bytes())
    report = judge_logs(
        folder, JudgeSettings(model="mock", aspects=("rec_relevance",), concurrency=1)
    )
    assert report.calls_made == 1
    judged = JudgeFile.read(report.path)  # the signature is checked
    (answer,) = judged.calls.values()
    call = answer["model_call"]
    assert call["model"] == "mock" and call["output"]["content"] == answer["reply"]
    (message,) = call["messages"]  # the dialogue judged, in the prompt as sent
    assert message["role"] == "user" and AGENT_SAYS in message["content"]
    assert call["latency_ms"] >= 0


def test_the_prompt_store_keeps_a_ten_turn_episodes_log_small(tmp_path: Path) -> None:
    """Each model call's event stays a few hundred bytes however long the conversation
    grows, and the system prompt and tool list are stored once in each episode's store."""
    out = tmp_path / "logs"
    agent = LLMAgent(
        LLMAgentSettings(
            model=MODEL, label="talker", max_steps=10, litellm_kwargs={"mock_response": AGENT_SAYS}
        )
    )
    settings = ServerSettings(log_dir=out, run_label="ten", patience=15)
    runner = Runner(agent, Connection("inproc", settings), out, "talker", handle_signals=False)
    anyio.run(runner.run, plan(["t001"], 2))
    logs = sorted(out.rglob("*.jsonl"))
    assert len(logs) == 2
    in_full = 0  # the bytes of logs that held every call's messages and tools in full
    store_bytes = 0
    for path in logs:
        store_path = find_store(path)
        assert store_path is not None and store_path == episode_store(path)
        store = read_store(store_path, 2**30)
        store_bytes += store_path.stat().st_size
        events = read_log(path).events
        calls = _calls(events, "agent")
        assert sum(e["type"] == "agent_message" for e in events) == len(calls) == 10
        for call in calls:
            sent = [store.contents[h] for h in store.messages(call["input"]) or []]
            assert len(sent) == call["input_messages"]
            in_full += len(orjson.dumps(sent)) + len(orjson.dumps(store.contents[call["tools"]]))
        lines = path.read_bytes().splitlines()
        assert max(len(x) for x in lines if b'"type":"model_call"' in x) < 1_200
    log_bytes = sum(p.stat().st_size for p in logs)
    print(
        f"2 episodes of 10 turns: logs {log_bytes:,} bytes + prompt store {store_bytes:,} bytes; "
        f"with every call's messages in full: {in_full:,} bytes"
    )
    system = store.contents[store.messages(calls[0]["input"])[0]]  # type: ignore[index]
    assert store_path.read_text().count(orjson.dumps(system["content"]).decode()[1:80]) == 1
    assert log_bytes + store_bytes < in_full / 4
