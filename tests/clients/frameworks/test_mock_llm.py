"""`taurec mock-llm` (clients/frameworks/mock_llm.py): an OpenAI-compatible stand-in whose
model plays taurec's scripted policy over the conversation it is sent, the kind told by
the request's tools or named in the model; an unknown model or an unreadable body is an
error in the OpenAI shape, one line; the command says where it listens and refuses a
port in use in one line."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys

import httpx
import openai
from starlette.testclient import TestClient
from support.hang_guard import HANG_GUARD_S
from support.lines import first_line
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.clients.frameworks.mock_llm import MALFORMED_TEXT, MODELS, chat_app

RANKING_TOOLS = [{"type": "function", "function": {"name": "submit_ranking", "parameters": {}}}]


def _ask(model: str, messages: list, tools: list | None = None) -> httpx.Response:
    body = {"model": model, "messages": messages, **({"tools": tools} if tools else {})}
    return TestClient(chat_app()).post("/v1/chat/completions", json=body)


def test_scripted_plays_the_kind_the_tools_show() -> None:
    answer = _ask("scripted", [{"role": "user", "content": "Rank these."}], RANKING_TOOLS)
    assert answer.status_code == 200
    (choice,) = answer.json()["choices"]
    (call,) = choice["message"]["tool_calls"]
    assert (
        call["function"]["name"] == "get_user_profile" and choice["finish_reason"] == "tool_calls"
    )
    assert answer.json()["usage"] == {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
    }


def test_a_named_kind_plays_without_tools_and_malformed_says_nothing_usable() -> None:
    opening = [{"role": "user", "content": "Something light for tonight?"}]
    said = _ask("scripted-recommendation", opening).json()["choices"][0]["message"]["content"]
    assert said.startswith("What are you in the mood for?")
    assert _ask("malformed", opening).json()["choices"][0]["message"]["content"] == MALFORMED_TEXT


def test_an_unknown_model_is_one_line_naming_the_models() -> None:
    answer = _ask("gpt-4o", [{"role": "user", "content": "hi"}])
    assert answer.status_code == 404
    message = answer.json()["error"]["message"]
    assert "\n" not in message and "'gpt-4o'" in message and ", ".join(MODELS) in message


def test_scripted_without_tools_that_tell_the_kind_asks_for_the_kind_by_name() -> None:
    message = _ask("scripted", [{"role": "user", "content": "hi"}]).json()["error"]["message"]
    assert "scripted-ranking, scripted-recommendation, scripted-stream" in message


def test_a_body_without_messages_is_refused_saying_what_is_expected() -> None:
    answer = TestClient(chat_app()).post("/v1/chat/completions", content=b"{}")
    assert answer.status_code == 400 and "'model' and 'messages'" in answer.text


def test_the_models_are_listed() -> None:
    listed = TestClient(chat_app()).get("/v1/models").json()
    assert [m["id"] for m in listed["data"]] == list(MODELS)


def test_the_command_says_where_it_listens_and_an_openai_client_is_answered() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "taurec.clients.cli.main", "mock-llm", "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        line = first_line(proc.stderr.fileno(), HANG_GUARD_S)
        url = line.split(" listening on ")[1].split(" ")[0]
        client = openai.OpenAI(base_url=url, api_key="any", max_retries=0)
        reply = client.chat.completions.create(
            model="scripted-ranking", messages=[{"role": "user", "content": "Rank these."}]
        )
        (call,) = reply.choices[0].message.tool_calls or []
        assert json.loads(call.function.arguments) == {}
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=HANG_GUARD_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_port_in_use_is_one_line_and_exit_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["mock-llm", "--port", str(port)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and f"--port {port}" in result.output
