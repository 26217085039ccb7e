"""The agenda-based user (UserSimCRS): its stack agenda, the four update cases, the
preference model, and requests that stay until answered."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.agenda_user import AgendaUser
from taurec.server.recommendation.simulator.information_need import InformationNeed
from taurec.server.recommendation.simulator.item_facts import REQUESTABLE
from taurec.server.recommendation.simulator.preference_model import (
    PreferenceModel,
    rescale,
    verdict,
)
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.dialogue_acts import constraint_value


def _item(item_id: str, title: str, **fields: Any) -> Item:
    base: dict[str, Any] = {
        "release_date": date(2015, 5, 1),
        "runtime": 85,
        "genres": ["Comedy"],
        "rating": 7.5,
        "vote_count": 5000,
        "content_rating": "PG",
        "director": "Mara Quill",
        "original_language": "fr",
    }
    return Item(id=item_id, title=title, **(base | fields))


CATALOG = Catalog.from_items(
    [
        _item("good", "The Lantern Keeper"),
        _item("also", "Harbor Of Kites"),
        _item("long", "The Endless Parade", runtime=130),
        _item("loved", "Paper Boats Again", genres=["Drama"]),
        _item("hated", "Gray Morning Rain", genres=["Horror"]),
    ]
)
COMEDY = Constraint(field="genres", op="contains", value="Comedy", reveal="volunteer")
RECENT = Constraint(field="release_date", op=">=", value=2010, reveal="on_ask")
SHORT = Constraint(field="runtime", op="<=", value=90, reveal="hidden")
TASK = RecommendationTask(
    id="t",
    persona="You are Ann.",
    constraints=[COMEDY, RECENT, SHORT],
    user={"watch_history": [{"item_id": "loved", "rating": 9}, {"item_id": "hated", "rating": 2}]},
)


def _user(seed: int = 0, **kw: Any) -> AgendaUser:
    user = AgendaUser(TASK, CATALOG, seed, **kw)
    user.opening()
    return user


def _intents(reply: Any) -> list[str]:
    return [a.intent for a in reply.acts]


def test_the_agenda_starts_with_start_a_disclosure_per_volunteer_constraint_requests_and_stop():
    user = AgendaUser(TASK, CATALOG, 0)
    stack = list(user.stack)
    assert stack[0].intent == "start" and stack[-1].intent == "stop"
    assert [a.value for a in stack if a.intent == "disclose"] == [constraint_value(COMEDY)]
    assert [a.slot for a in stack if a.intent == "inquire"] == user.need.requests


def test_the_opening_pops_start_and_the_disclosures():
    user = _user()
    assert [a.intent for a in user.opening_acts] == ["start", "disclose"]
    assert user.stack[0].intent == "inquire"


def test_requests_never_ask_about_a_constrained_field():
    constrained = {c.field for c in TASK.constraints}
    for seed in range(50):
        requests = InformationNeed(TASK, seed).requests
        assert 1 <= len(requests) <= 2 and not set(requests) & constrained
        assert set(requests) <= set(REQUESTABLE)


def test_elicit_of_an_on_ask_attribute_discloses_its_constraint():
    reply = _user().respond("Do you want something recent or older?")
    assert [(a.intent, a.slot) for a in reply.acts] == [("disclose", "release_date")]


def test_elicit_of_an_attribute_with_only_hidden_constraints_is_dont_know():
    reply = _user().respond("How long should it be?")
    assert [(a.intent, a.slot) for a in reply.acts] == [("dont_know", "length")]
    assert "90" not in reply.text


def test_elicit_of_an_unconstrained_attribute_is_dont_know():
    reply = _user().respond("Any language preference?")
    assert _intents(reply) == ["dont_know"]


def test_a_watched_title_is_answered_as_seen_with_the_rating_preference():
    reply = _user().respond("How about Paper Boats Again?")
    (act,) = reply.acts
    assert (act.intent, act.items, act.value) == ("seen", ("loved",), "like")


def test_a_title_breaking_a_constraint_is_rejected():
    reply = _user().respond("How about The Endless Parade?")
    assert _intents(reply)[0] == "reject" and reply.acts[0].items == ("long",)
    assert reply.accepted is None


def test_a_fitting_title_first_gets_the_requests_asked_about_it():
    user = _user()
    reply = user.respond("How about The Lantern Keeper?")
    (act,) = reply.acts
    assert (act.intent, act.slot, act.items) == ("inquire", user.need.requests[0], ("good",))
    assert reply.accepted is None


def test_an_unanswered_request_is_asked_again_not_dropped():
    user = _user()
    first = user.respond("How about The Lantern Keeper?")
    again = user.respond("Let me know what you think.")
    assert again.acts == first.acts


def _answer(slot: str) -> str:
    item = CATALOG.get("good")
    assert item is not None
    return {
        "director": "It is by Mara Quill.",
        "runtime": "It runs 85 minutes.",
        "release_date": "It came out in 2015.",
        "cast": "No cast listed.",
        "rating": "It is rated 7.5.",
        "content_rating": "It is rated PG.",
        "streaming_services": "Not streaming.",
        "original_language": "It is in French.",
    }[slot]


@pytest.mark.parametrize("seed", range(6))
def test_once_every_request_is_answered_the_user_accepts(seed: int) -> None:
    user = _user(seed)
    reply = user.respond("How about The Lantern Keeper?")
    for _ in range(3):
        if reply.accepted:
            break
        (act,) = reply.acts
        assert act.intent == "inquire"
        reply = user.respond(_answer(act.slot or ""))
    assert reply.accepted == "good" and _intents(reply) == ["accept"]


def test_two_titles_in_one_message_each_get_a_response():
    reply = _user().respond("How about The Endless Parade or Paper Boats Again?")
    assert [(a.intent, a.items) for a in reply.acts] == [
        ("reject", ("long",)),
        ("seen", ("loved",)),
    ]


def test_after_its_patience_the_user_pops_stop_and_leaves():
    user = _user(patience=2)
    user.respond("Hmm.")
    reply = user.respond("Hmm.")
    assert reply.left and _intents(reply) == ["stop"]


def test_a_fitting_commit_is_accepted():
    reply = _user().react_to_commit("good")
    assert reply.accepted == "good" and _intents(reply) == ["accept"]


def test_ratings_are_rescaled_to_minus_one_one_as_usersimcrs_does():
    assert rescale(10) == 1.0 and rescale(1) == -1.0 and rescale(0) == -1.0
    assert rescale(5.5) == pytest.approx(0.0)


def test_like_and_dislike_sit_at_a_quarter():
    assert (verdict(0.3), verdict(-0.3), verdict(0.2)) == ("like", "dislike", "neutral")


def test_slot_value_preferences_come_from_the_rated_history():
    model = PreferenceModel(TASK.user, CATALOG, seed=0)
    assert model.value("genres", "Drama") > 0.25 > -0.25 > model.value("genres", "Horror")
    assert model.liked_values("genres") == ["drama"]


def test_unknown_values_get_a_memoised_coin():
    model = PreferenceModel(TASK.user, CATALOG, seed=3)
    first = model.value("genres", "Western")
    assert first in (-1.0, 1.0) and model.value("genres", "Western") == first


def test_a_pitch_that_answers_the_request_is_not_asked_it_again():
    user = _user()
    (asked,) = user.respond("How about The Lantern Keeper?").acts
    reply = user.respond(f"The Lantern Keeper! {_answer(asked.slot or '')}")
    assert all(a.slot != asked.slot for a in reply.acts if a.intent == "inquire")


def test_a_title_two_items_share_is_dont_know_never_the_one_that_suits():
    shared = Catalog.from_items(
        [
            *CATALOG.items,
            _item("twin_old", "Twin Harbor", release_date=date(1987, 3, 1), genres=["Horror"]),
            _item("twin_new", "Twin Harbor"),
        ]
    )
    user = AgendaUser(TASK, shared, 0)
    user.opening()
    reply = user.respond("How about Twin Harbor?")
    assert _intents(reply) == ["dont_know"] and reply.accepted is None
    assert _intents(user.respond("How about Twin Harbor (2015)?")) == ["inquire"]
