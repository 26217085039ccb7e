"""UserSimCRS's agenda-based user (`--simulator abus`): the agenda from the information
need, one entry popped per turn, the four update cases, the intent schema, the sampled
case, and the end when the agenda runs out."""

from __future__ import annotations

from pathlib import Path

import pytest

from taurec.catalog.errors import DataError
from taurec.server.recommendation.simulator.abus import AbusUser
from taurec.server.recommendation.simulator.intent_schema import IntentSchema
from taurec.server.recommendation.simulator.preference_model import verdict
from taurec.server.recommendation.simulator.transitions import TransitionMatrices
from taurec.tasks.trajectory.dialogue_acts import constraint_value

from .test_agenda_user import CATALOG, COMEDY, RECENT, SHORT, TASK


def _user(seed: int = 0, **kw: object) -> AbusUser:
    return AbusUser(TASK, CATALOG, seed, **kw)  # type: ignore[arg-type]


def _intents(user: AbusUser, text: str) -> list[str]:
    return [a.intent for a in user.respond(text).acts]


def test_the_agenda_is_start_the_stated_constraints_the_requests_and_stop():
    user = _user()
    entries = [[(a.intent, a.slot) for a in e] for e in user.agenda]
    assert entries[0] == [("start", None)]
    assert entries[-1] == [("stop", None)]
    disclosed = [a for e in user.agenda for a in e if a.intent == "disclose"]
    assert {a.value for a in disclosed} == {constraint_value(COMEDY), constraint_value(RECENT)}
    assert SHORT.field not in {a.slot for a in disclosed}  # hidden: never stated
    inquired = [a.slot for e in user.agenda for a in e if a.intent == "inquire"]
    assert inquired == user.need.requests and 1 <= len(inquired) <= 2


def test_the_opening_says_start_only():
    user = _user()
    user.opening()
    assert [a.intent for a in user.opening_acts] == ["start"]


def test_an_elicited_constrained_slot_is_disclosed_and_one_entry_is_said_per_turn():
    user = _user()
    user.opening()
    reply = user.respond("What genre are you in the mood for?")
    assert [(a.intent, a.value) for a in reply.acts] == [("disclose", constraint_value(COMEDY))]
    # one entry a turn: start and the genre are gone, the rest of the need still waits
    assert len(user.agenda) == len(_user().agenda) - 2
    assert any(a.slot == RECENT.field for e in user.agenda for a in e)


def test_an_elicited_slot_without_a_constraint_or_liked_value_is_dont_know():
    user = _user()
    user.opening()
    assert _intents(user, "How long should it be?") == ["dont_know"]


def test_a_named_genre_gets_yes_or_no_from_the_preference_model():
    user = _user()
    user.opening()
    (act,) = user.respond("Are you in the mood for a drama?").acts
    expected = {"like": "yes", "dislike": "no", "neutral": "neutral"}
    assert act.intent == expected[verdict(user.preferences.value("genres", "Drama"))]
    assert (act.slot, act.value) == ("genres", "Drama")


def test_a_recommendation_is_judged_at_once_by_the_preference_model():
    user = _user()
    user.opening()
    (act,) = user.respond("How about The Lantern Keeper?").acts
    like = verdict(user.preferences.item("good"))
    assert act.intent == {"like": "accept", "dislike": "reject", "neutral": "neutral"}[like]
    assert act.items == ("good",)


def test_a_rated_title_is_seen_and_judged_by_its_rating():
    user = _user()
    user.opening()
    reply = user.respond("Have you seen Paper Boats Again?")
    assert [(a.intent, a.items) for a in reply.acts] == [
        ("seen", ("loved",)),
        ("accept", ("loved",)),
    ]
    assert reply.accepted == "loved"


def test_the_same_title_gets_the_same_verdict_every_time():
    verdicts = {
        tuple(a.intent for a in _user(seed).respond("How about Harbor Of Kites?").acts)
        for _ in range(3)
        for seed in (7,)
    }
    assert len(verdicts) == 1


def test_a_recommendation_of_two_titles_keeps_both_responses():
    user = _user()
    user.opening()
    first = user.respond("How about Paper Boats Again or Gray Morning Rain?")
    assert first.acts[0].items == ("loved",)
    second = user.respond("Okay.")  # nothing to respond to: the next entry is the other title
    assert ("hated",) in [a.items for a in second.acts]


def test_an_inquiry_without_a_slot_is_answered_with_an_open_request():
    user = _user()
    user.opening()
    user.respond("How about The Lantern Keeper?")
    (act,) = user.respond("Shall I tell you more?").acts
    assert act.intent == "inquire" and act.slot in user.need.requests
    assert act.items == ("good",)


def test_an_answered_request_leaves_the_agenda():
    user = _user(seed=3)
    user.opening()
    user.respond("How about The Lantern Keeper?")
    slot = user.need.requests[0]
    answer = {
        "director": "It is directed by Mara Quill.",
        "runtime": "It runs 85 minutes.",
        "release_date": "It came out in 2015.",
        "cast": "",
        "rating": "It is rated 7.5.",
        "content_rating": "It is rated PG.",
        "streaming_services": "",
        "original_language": "It is in French.",
    }[slot]
    if not answer:
        pytest.skip(f"the catalog item has no {slot} to answer with")
    user.respond(answer)
    assert slot in user.answered
    assert all(not (a.intent == "inquire" and a.slot == slot) for e in user.agenda for a in e)


def test_when_the_agenda_runs_out_the_user_stops():
    user = _user()
    user.opening()
    replies = [user.respond("Okay.") for _ in range(len(user.agenda))]
    assert [r.left for r in replies] == [False] * (len(replies) - 1) + [True]
    assert replies[-1].acts[-1].intent == "stop"
    assert user.respond("Hello?").left


def test_a_commit_is_judged_like_a_recommendation_and_an_abstention_stops():
    user = _user()
    user.opening()
    reaction = user.react_to_commit("loved")
    assert reaction.accepted == "loved"
    assert _user().react_to_commit(None).acts[-1].intent == "stop"


def test_the_sampled_case_fills_the_user_intents_from_the_matrices():
    matrices = TransitionMatrices(single={"other": {"dont_know": 1.0}}, transitions=1)
    user = _user(transitions=matrices)
    user.opening()
    user.respond("What genre?")  # the last act is now a disclose, which expects elicit
    assert _intents(user, "Nice weather today.") == ["dont_know"]


def test_without_matrices_an_unexpected_turn_pops_the_agenda():
    user = _user()
    user.opening()
    user.respond("What genre?")
    following = [a.intent for a in user.agenda[0]]
    assert _intents(user, "Nice weather today.") == following


def test_the_default_schema_is_iard_in_taurec_intents():
    schema = IntentSchema.load()
    assert schema.name == "iard"
    assert schema.intent("like") == "accept" and schema.intent("item_consumed") == "seen"
    assert schema.expects("disclose", {"elicit"}) and not schema.expects("disclose", {"other"})


def test_a_schema_in_iard_labels_is_mapped_to_taurec_intents(tmp_path: Path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: mine\nrequired_intents: {start: IQU, stop: BYE, item_consumed: SEE, like: ACC, "
        "dislike: REJ, neutral: NRE, disclose: PRO, inquire: INQ, dont_know: DONT-KNOW, "
        '"yes": "YES", "no": "NO"}\nuser_intents: {PRO: [REQ, CLA]}\n'
        "agent_elicit_intents: [REQ]\nagent_set_retrieval: [REC-S, REC-E]\n"
        "agent_inquire_intents: [INQ]\n"
    )
    schema = IntentSchema.load(path)
    assert schema.intent("stop") == "stop" and schema.user_intents == {
        "disclose": ("elicit", "elicit")
    }
    assert schema.agent_set_retrieval == ("recommend", "recommend")


def test_a_schema_without_a_required_intent_is_one_clear_error(tmp_path: Path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: x\nrequired_intents: {start: start}\nagent_elicit_intents: []\n"
        "agent_set_retrieval: []\nagent_inquire_intents: []\n"
    )
    with pytest.raises(DataError) as caught:
        IntentSchema.load(path)
    assert "required_intents" in str(caught.value) and "stop" in str(caught.value)


def test_a_missing_schema_file_is_one_clear_error(tmp_path: Path):
    with pytest.raises(DataError, match="no such file"):
        IntentSchema.load(tmp_path / "none.yaml")


def test_with_an_llm_nlu_the_user_reads_the_agent_with_it():
    from types import SimpleNamespace

    from taurec.server.recommendation.simulator.llm_acts import LLMAgentNLU
    from taurec.server.recommendation.simulator.llm_user import LLMUserSettings
    from taurec.server.recommendation.simulator.nlu import MessageReader

    def model(**kwargs: object) -> object:
        message = SimpleNamespace(content='recommend(title="Paper Boats Again")')
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None)

    settings = LLMUserSettings(model="openai/test", cache_dir=None, completion=model)
    nlu = LLMAgentNLU(CATALOG, settings, MessageReader(CATALOG.items))
    user = _user(nlu=nlu)
    user.opening()
    # the words name no title; the LLM's reading is what the user answers
    assert [a.intent for a in user.respond("Maybe that boat one?").acts] == ["seen", "accept"]


def test_asked_about_a_slot_it_holds_no_need_for_it_names_a_catalog_value_it_likes():
    """UserSimCRS's user (`slot_values="catalog"`) names a value of the slot drawn from the
    catalog's values, one its preference model likes; taurec's default says don't know
    where its history says nothing."""
    from taurec.catalog.store import Catalog
    from taurec.server.recommendation.simulator.slot_values import SlotValues

    from .test_agenda_user import _item

    directors = [f"Director {k}" for k in range(12)]
    catalog = Catalog.from_items(
        [_item(f"d{k}", f"Film Number {k}", director=d) for k, d in enumerate(directors)]
    )
    task = TASK.model_copy(update={"user": TASK.user.model_copy(update={"watch_history": []})})
    values = SlotValues(catalog)
    named = []
    for seed in range(20):
        user = AbusUser(task, catalog, seed, slot_values=values)
        user.opening()
        (act,) = user.respond("Any favourite director?").acts
        if act.intent == "disclose":
            assert act.slot == "director" and act.value in directors
            assert user.preferences.value("director", act.value) >= 0.25
            named.append(act.value)
        else:
            assert act.intent == "dont_know"
    assert len(named) >= 15 and len(set(named)) >= 3  # ten draws of a coin: nearly always
    plain = AbusUser(task, catalog, 0)
    plain.opening()
    assert _intents(plain, "Any favourite director?") == ["dont_know"]


def test_the_catalog_values_of_a_field_are_every_value_an_item_holds():
    from taurec.server.recommendation.simulator.slot_values import SlotValues

    values = SlotValues(CATALOG)
    assert values.of("genres") == sorted({g for it in CATALOG.items for g in it.genres})
    assert values.of("year") == sorted({str(it.release_date.year) for it in CATALOG.items})
