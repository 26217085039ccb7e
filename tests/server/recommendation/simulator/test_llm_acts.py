"""The LLM user's dialogue acts: its own ACTS: line (acts_by 'llm') or a classification
pass over its reply (acts_by 'llm-classifier'); every model call is mocked."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

from types import SimpleNamespace
from typing import Any

from taurec.server.recommendation.simulator.llm_user import LLMUser, LLMUserSettings, make_llm_user
from taurec.tasks.recommendation.constraint import Reveal
from taurec.tasks.suite import load_suite

SUITE = load_suite("builtin")
TASK = next(t for t in SUITE.tasks if t.constraints_by(Reveal.VOLUNTEER))
FITS = next(
    i
    for i in SUITE.catalog.items
    if i.id not in TASK.user.watched_ids and all(c.holds(i) for c in TASK.constraints)
)


class Model:
    def __init__(self, answers: list[str]) -> None:
        self.answers = answers
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        text = self.answers[min(len(self.calls), len(self.answers)) - 1]
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=text))],
            usage=SimpleNamespace(prompt_tokens=1, completion_tokens=1),
        )


def _user(model: Model, **settings: Any) -> LLMUser:
    s = LLMUserSettings(model="openai/test", cache_dir=None, completion=model, **settings)
    return make_llm_user(TASK, SUITE.catalog, 0, s)


def test_the_acts_line_becomes_the_logged_acts_and_leaves_the_text():
    user = _user(Model(["Hi!\nACTS: start()", "Love it.\nACTS: accept()"]))
    user.opening()
    reply = user.respond(f'How about "{FITS.title}"?')
    assert reply.text == "Love it." and reply.acts_by == "llm"
    assert [(a.intent, a.items) for a in reply.acts] == [("accept", (FITS.id,))]


def test_the_model_is_told_to_label_its_replies():
    model = Model(["Hi!\nACTS: start()"])
    _user(model).opening()
    assert "ACTS:" in model.calls[0]["messages"][0]["content"]


def test_a_reply_without_an_acts_line_logs_no_acts_and_is_counted():
    user = _user(Model(["Hi!", "Sure."]))
    user.opening()
    reply = user.respond("Anything else?")
    assert reply.acts == () and reply.acts_by == "llm"
    assert user.stats()["unlabelled_replies"] == 2


def test_the_classifier_reads_the_acts_off_the_reply_in_a_call_of_its_own():
    model = Model(["Hi!", "start()", "Love it.", "accept()"])
    user = _user(model, acts="classifier")
    user.opening()
    reply = user.respond(f'How about "{FITS.title}"?')
    assert reply.acts_by == "llm-classifier"
    assert [(a.intent, a.items) for a in reply.acts] == [("accept", (FITS.id,))]
    assert "UTTERANCE: Love it." in model.calls[-1]["messages"][0]["content"]


def test_a_classifier_answer_out_of_format_gives_no_acts_and_is_counted():
    user = _user(Model(["Hi!", "I think they said hello"]), acts="classifier")
    user.opening()
    assert user.opening_acts == () and user.stats()["unparsed_acts"] == 1
