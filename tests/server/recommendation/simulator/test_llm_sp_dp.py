"""UserSimCRS's LLM users (`--simulator llm-sp`, `llm-dp`): the LLM holds the need and
decides alone (mocked models here); the end and give-up markers, the dual prompt's
continue question, and the simulator-fault audit on what the model decided."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
from mcp import Client

from taurec.evaluator.logs import Resolver, score_file
from taurec.server.app import build_server
from taurec.server.recommendation.simulator.llm_client import LLMUserSettings
from taurec.server.recommendation.simulator.llm_sp_dp import (
    DecidingLLMUser,
    deciding_llm_users,
    generation_prompt,
    read_reply,
    stop_prompt,
)
from taurec.server.recommendation.simulator.phrasing import describe
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.constraint import Reveal
from taurec.tasks.suite import load_suite

from .test_agenda_user import CATALOG, COMEDY, SHORT, TASK

SUITE = load_suite("builtin")
OPENING = "Hi! I am looking for a movie."


class Scripted:
    """A mocked model: `decide` answers the continue question, `reply` writes the user's
    message, `acts` classifies it; every prompt is kept."""

    def __init__(self, reply: str, acts: str = "other()", decide: str = "TRUE") -> None:
        self.answers = {"decide": decide, "reply": reply, "acts": acts}
        self.prompts: list[str] = []

    def __call__(self, **kwargs: Any) -> Any:
        prompt = kwargs["messages"][-1]["content"]
        self.prompts.append(prompt)
        if prompt.rstrip().endswith("CONTINUE:"):
            text = self.answers["decide"]
        elif "ACTS:" in prompt:
            text = "start()" if OPENING in prompt else self.answers["acts"]
        elif "ASSISTANT:" not in prompt:
            text = OPENING
        else:
            text = self.answers["reply"]
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=text))], usage=None
        )


def _user(model: Scripted, variant: str = "single") -> DecidingLLMUser:
    settings = LLMUserSettings(
        model="openai/test", variant=variant, cache_dir=None, completion=model, acts="classifier"
    )
    return DecidingLLMUser(TASK, CATALOG, 0, settings)  # type: ignore[arg-type]


def test_the_prompt_holds_the_need_the_persona_and_the_history():
    user = _user(Scripted("Hi!"))
    prompt = generation_prompt(
        TASK, user.need, ["USER: Hi!", "ASSISTANT: Hello, what do you like?"]
    )
    assert describe(COMEDY) in prompt and "PERSONA: You are Ann." in prompt
    assert "never say out loud: " + describe(SHORT) in prompt
    assert "ASSISTANT: Hello, what do you like?" in prompt and prompt.endswith("USER:")
    assert "\\end" in prompt and "\\giveup" in prompt


def test_the_end_and_give_up_markers_are_read_and_taken_out():
    assert read_reply("USER: Great, thanks! \\end") == ("Great, thanks!", "\\end")
    assert read_reply("This is going nowhere \\giveup") == ("This is going nowhere", "\\giveup")
    assert read_reply("Tell me more.") == ("Tell me more.", None)


def test_the_model_decides_to_take_a_title_and_end():
    model = Scripted("I'll take The Lantern Keeper! \\end", 'accept(title="The Lantern Keeper")')
    user = _user(model)
    user.opening()
    reply = user.respond("How about The Lantern Keeper?")
    assert reply.accepted == "good" and not reply.left  # the agent may still commit it
    assert [a.intent for a in reply.acts] == ["accept"]
    assert reply.text == "I'll take The Lantern Keeper!"
    assert user.react_to_commit("good").accepted == "good"
    assert user.respond("Anything else?").left  # done: nothing more is answered


def test_giving_up_leaves_the_conversation():
    user = _user(Scripted("You are not helping. \\giveup"))
    user.opening()
    assert user.respond("Whatever.").left
    assert user.respond("Hello?").left  # gone


def test_the_dual_prompt_stops_on_false_without_writing_a_reply():
    model = Scripted("should not be asked", decide="FALSE")
    user = _user(model, "dual")
    user.opening()
    reply = user.respond("What do you like?")
    assert reply.left and reply.text == "\\end" and user.stopped_by_decision == 1
    assert sum(p.rstrip().endswith("CONTINUE:") for p in model.prompts) == 1


def test_the_dual_prompt_goes_on_otherwise_and_sees_both_sides():
    model = Scripted("Something funny, please.", decide="True")
    user = _user(model, "dual")
    user.opening()
    reply = user.respond("What do you like?")
    assert not reply.left and reply.text == "Something funny, please."
    (asked,) = [p for p in model.prompts if p.rstrip().endswith("CONTINUE:")]
    assert "USER: Something funny, please." in stop_prompt(TASK, user.history)
    assert "ASSISTANT: What do you like?" in asked and "USER: " in asked


async def test_the_audit_flags_a_violating_title_the_model_accepted(tmp_path: Path):
    task = next(
        t
        for t in SUITE.tasks
        if t.constraints_by(Reveal.VOLUNTEER) and not t.no_valid_recommendation
    )
    violating = next(it for it in SUITE.catalog if not all(c.holds(it) for c in task.constraints))
    model = Scripted(f"Yes, {violating.title} it is! \\end", f'accept(title="{violating.title}")')
    llm = LLMUserSettings(model="openai/test", cache_dir=None, completion=model, acts="classifier")
    server = build_server(
        ServerSettings(log_dir=tmp_path, run_label="llm-sp"),
        make_user=deciding_llm_users(SUITE.catalog, llm),
    )
    async with Client(server) as client:
        started = await client.call_tool("start_episode", {"task_id": task.id})
        eid = (started.structured_content or {})["episode_id"]
        await client.call_tool(
            "send_message", {"episode_id": eid, "text": f"How about {violating.title}?"}
        )
        await client.call_tool("recommend", {"episode_id": eid, "item_id": violating.id})
    (log,) = tmp_path.rglob("*.jsonl")
    header = orjson.loads(log.read_bytes().splitlines()[0])
    assert header["simulator"]["kind"] == "llm-sp"
    score = score_file(log, Resolver())
    assert score.end_reason == "recommended"
    assert {f.kind for f in score.simulator_faults} == {"accepted_violating"}


def test_the_model_is_called_through_litellm_with_a_mocked_response(monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    settings = LLMUserSettings(
        model="openai/gpt-4o-mini",
        cache_dir=None,
        acts="classifier",
        litellm_kwargs={"mock_response": "No luck here \\giveup"},
    )
    user = DecidingLLMUser(TASK, CATALOG, 0, settings)
    assert user.opening() == "No luck here"
    assert user.respond("How about The Lantern Keeper?").left
