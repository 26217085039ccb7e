"""The deterministic agent-side NLU: the acts of an agent message, over the catalog."""

from __future__ import annotations

from datetime import date
from typing import Any

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.agent_nlu import AgentNLU
from taurec.tasks.trajectory.dialogue_acts import DialogueAct


def _item(item_id: str, title: str, **fields: Any) -> Item:
    base: dict[str, Any] = {
        "release_date": date(2015, 5, 1),
        "runtime": 85,
        "genres": ["Comedy"],
        "rating": 7.5,
        "vote_count": 5000,
        "content_rating": "PG",
        "director": "Mara Quill",
    }
    return Item(id=item_id, title=title, **(base | fields))


NLU = AgentNLU(
    Catalog.from_items(
        [_item("a", "The Lantern Keeper"), _item("b", "Harbor Of Kites", genres=["Drama"])]
    )
)


def _pairs(acts: list[DialogueAct]) -> list[tuple[str, str | None]]:
    return [(a.intent, a.slot) for a in acts]


def test_a_named_title_is_a_recommendation_of_its_item():
    (act,) = NLU.acts("How about The Lantern Keeper?")
    assert (act.intent, act.items) == ("recommend", ("a",))


def test_a_question_about_an_attribute_elicits_that_slot():
    assert _pairs(NLU.acts("How long should it be?")) == [("elicit", "length")]


def test_a_genre_named_in_the_question_is_its_value():
    (act,) = NLU.acts("Are you in the mood for a drama?")
    assert (act.intent, act.slot, act.value) == ("elicit", "genre", "Drama")


def test_another_question_is_an_inquire():
    assert _pairs(NLU.acts("Shall I go ahead?")) == [("inquire", None)]


def test_a_plain_statement_is_other():
    assert _pairs(NLU.acts("Let me look that up.")) == [("other", None)]


def test_naming_the_requested_value_answers_the_request():
    asked = DialogueAct(intent="inquire", slot="director", items=("a",))
    acts = NLU.acts("It was directed by Mara Quill.", [asked])
    assert [(a.intent, a.slot, a.items) for a in acts] == [("answer", "director", ("a",))]


def test_a_message_without_the_value_answers_nothing():
    asked = DialogueAct(intent="inquire", slot="runtime", items=("a",))
    assert _pairs(NLU.acts("It is a lovely film.", [asked])) == [("other", None)]


def test_the_llm_nlu_reads_acts_from_a_mocked_model():
    from types import SimpleNamespace

    from taurec.server.recommendation.simulator.llm_acts import LLMAgentNLU
    from taurec.server.recommendation.simulator.llm_user import LLMUserSettings

    def model(**kwargs: object) -> object:
        content = 'recommend(title="Harbor Of Kites")|elicit(runtime)'
        message = SimpleNamespace(content=content)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None)

    settings = LLMUserSettings(model="openai/test", cache_dir=None, completion=model)
    nlu = LLMAgentNLU(NLU.catalog, settings, NLU.reader)
    acts = nlu.acts("Maybe Harbor Of Kites? How long can it be?")
    assert nlu.acts_by == "llm-nlu"
    assert [(a.intent, a.slot, a.items) for a in acts] == [
        ("recommend", None, ("b",)),
        ("elicit", "runtime", ()),
    ]


def test_naming_the_title_under_discussion_in_an_answer_is_no_recommendation():
    asked = DialogueAct(intent="inquire", slot="release_date", items=("a",))
    acts = NLU.acts("The Lantern Keeper came out in 2015.", [asked])
    assert [(a.intent, a.items) for a in acts] == [("answer", ("a",))]


def test_a_title_under_discussion_named_without_the_answer_is_still_no_recommendation():
    asked = DialogueAct(intent="inquire", slot="director", items=("a",))
    assert _pairs(NLU.acts("I am not sure about The Lantern Keeper, sorry.", [asked])) == [
        ("other", None)
    ]


def test_another_title_named_in_an_answer_is_a_recommendation():
    asked = DialogueAct(intent="inquire", slot="director", items=("a",))
    acts = NLU.acts("Mara Quill directed it; or try Harbor Of Kites.", [asked])
    assert [(a.intent, a.items) for a in acts] == [("recommend", ("b",)), ("answer", ("a",))]


def test_the_llm_nlu_keeps_the_same_rule_for_the_title_under_discussion():
    from types import SimpleNamespace

    from taurec.server.recommendation.simulator.llm_acts import LLMAgentNLU
    from taurec.server.recommendation.simulator.llm_user import LLMUserSettings

    def model(**kwargs: object) -> object:
        content = 'recommend(title="The Lantern Keeper")|answer(release_date="2015")'
        message = SimpleNamespace(content=content)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None)

    settings = LLMUserSettings(model="openai/test", cache_dir=None, completion=model)
    nlu = LLMAgentNLU(NLU.catalog, settings, NLU.reader)
    asked = DialogueAct(intent="inquire", slot="release_date", items=("a",))
    acts = nlu.acts("The Lantern Keeper came out in 2015.", [asked])
    assert [a.intent for a in acts] == ["answer"]
