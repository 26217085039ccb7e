"""An LLM as the NLG of a deciding user (`--nlg-model`): the words change, the decisions
(acts, acceptance, leaving) do not, and a wording that leaks a hidden constraint is
replaced by the template's."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
from mcp import Client

from taurec.server.app import build_server
from taurec.server.recommendation.simulator.abus import AbusUser
from taurec.server.recommendation.simulator.llm_client import LLMUserSettings
from taurec.server.recommendation.simulator.llm_nlg import LLMWorded, nlg_prompt
from taurec.server.recommendation.simulator.phrasing import describe
from taurec.server.settings import ServerSettings

from .test_agenda_user import CATALOG, SHORT, TASK


class Says:
    def __init__(self, text: str) -> None:
        self.text = text
        self.prompts: list[str] = []

    def __call__(self, **kwargs: Any) -> Any:
        self.prompts.append(kwargs["messages"][-1]["content"])
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=self.text))], usage=None
        )


def _pair(text: str) -> tuple[AbusUser, LLMWorded, Says]:
    model = Says(text)
    settings = LLMUserSettings(model="openai/test", cache_dir=None, completion=model)
    plain = AbusUser(TASK, CATALOG, 0)
    return plain, LLMWorded(AbusUser(TASK, CATALOG, 0), TASK, CATALOG, 0, settings), model


def test_the_words_change_and_the_decisions_do_not():
    plain, worded, model = _pair("USER: Paper Boats Again? Loved it, seen it already!")
    plain.opening()
    worded.opening()
    a = plain.respond("Have you seen Paper Boats Again?")
    b = worded.respond("Have you seen Paper Boats Again?")
    assert (b.acts, b.accepted, b.left) == (a.acts, a.accepted, a.left)
    assert b.text == "Paper Boats Again? Loved it, seen it already!" != a.text
    assert "seen()|accept()" in model.prompts[-1] and "Paper Boats Again" in model.prompts[-1]


def test_a_wording_that_states_a_hidden_constraint_falls_back_to_the_template():
    plain, worded, _ = _pair(f"Sure, and {describe(SHORT)}.")
    plain.opening()
    worded.opening()
    a = plain.respond("What genre?")
    b = worded.respond("What genre?")
    assert b.text == a.text and worded.fallbacks >= 1


def test_the_prompt_holds_the_acts_the_titles_and_the_meaning_to_keep():
    prompt = nlg_prompt("accept()", "Night Train", "Yes, that one!")
    assert "ACTS: accept()\nTITLES: Night Train\n(meaning to keep: Yes, that one!)" in prompt


async def test_a_server_with_an_nlg_model_logs_the_same_acts_with_new_words(
    tmp_path: Path, monkeypatch: Any
):
    from taurec.server.recommendation import service, simulators
    from taurec.server.recommendation.simulator.llm_nlg import llm_worded

    model = Says("Hello there, recommend me something!")
    mocked = LLMUserSettings(model="openai/test", cache_dir=None, completion=model)

    def worded(make_user: Any, record: dict[str, Any], settings: ServerSettings) -> Any:
        _, kept = simulators.worded(make_user, record, settings)  # the header's record
        return llm_worded(make_user, mocked), kept

    monkeypatch.setattr(service, "worded", worded)
    settings = ServerSettings(log_dir=tmp_path, simulator="abus", nlg_model="openai/test")
    async with Client(build_server(settings)) as client:
        started = await client.call_tool("start_episode", {"task_id": "t001"})
        assert (started.structured_content or {})["opening"] == model.text
    (log,) = tmp_path.rglob("*.jsonl")
    lines = [orjson.loads(x) for x in log.read_bytes().splitlines()]
    assert lines[0]["simulator"]["kind"] == "abus"
    assert lines[0]["simulator"]["settings"]["nlg"]["model"] == "openai/test"
    opening = next(x for x in lines if x["type"] == "user_message")
    assert [a["intent"] for a in opening["acts"]] == ["start"]  # decided by abus, as ever
