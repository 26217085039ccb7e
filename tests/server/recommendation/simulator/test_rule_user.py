"""The rule-based user: opening, answers, reactions to pitches, patience, last words."""

from __future__ import annotations

from datetime import date
from functools import cache
from typing import Any

import pytest

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator import RuleBasedUser, make_rule_user
from taurec.server.recommendation.simulator.acts import ActKind
from taurec.server.recommendation.simulator.hints import hints_for
from taurec.server.recommendation.simulator.nlu import FIELD_ATTRIBUTE, Attribute
from taurec.server.recommendation.simulator.phrasing import describe, spoken_values
from taurec.tasks.recommendation.answers import answers, compliant_answers
from taurec.tasks.recommendation.constraint import Constraint, Reveal
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import Suite, load_suite

K = ActKind

#: One plain question per attribute.
ASK: dict[Attribute, str] = {
    Attribute.GENRE: "What genre would you like?",
    Attribute.LENGTH: "How long should it be?",
    Attribute.MATURITY: "Any content rating limits?",
    Attribute.QUALITY: "Do reviews and ratings matter to you?",
    Attribute.SERVICES: "Which streaming services do you have?",
    Attribute.RECENCY: "Do you want something recent or older?",
    Attribute.PEOPLE: "Any favourite actors or directors?",
    Attribute.LANGUAGE: "Any language preference?",
    Attribute.HISTORY: "What have you watched lately?",
    Attribute.OTHER: "Anything else I should know?",
}


@cache
def builtin() -> Suite:
    return load_suite("builtin")


def _item(item_id: str, title: str, **fields: Any) -> Item:
    base: dict[str, Any] = {
        "release_date": date(2012, 5, 1),
        "runtime": 95,
        "genres": ["Comedy"],
        "rating": 7.5,
        "vote_count": 5000,
        "content_rating": "PG",
        "streaming_services": ["Netflix"],
    }
    return Item(id=item_id, title=title, **(base | fields))


CATALOG = Catalog.from_items(
    [
        _item("good", "The Lantern Keeper"),
        _item("long", "The Endless Parade", runtime=170),
        _item("drama", "Gray Morning Rain", genres=["Drama"]),
        _item("weak", "The Broken Jukebox", rating=4.1),
        _item("seen", "Paper Boats Again"),
        _item("also_good", "Marigold Summer"),
    ]
)


def _task(
    *constraints: Constraint, soft: list[str] | None = None, **extra: Any
) -> RecommendationTask:
    return RecommendationTask(
        id="t",
        persona="You are Priya, a 34-year-old nurse who wants a laugh after a long shift.",
        constraints=list(constraints),
        soft_preferences=soft or [],
        user={"services": ["Netflix"], "watch_history": [{"item_id": "seen"}]},
        **extra,
    )


COMEDY = Constraint(field="genres", op="contains", value="Comedy", reveal="volunteer")
SHORT_ON_ASK = Constraint(field="runtime", op="<=", value=100, reveal="on_ask")
GOOD_HIDDEN = Constraint(field="rating", op=">=", value=7, reveal="hidden")


def _user(*constraints: Constraint, seed: int = 0, **kw: Any) -> RuleBasedUser:
    patience = kw.pop("patience", 6)
    return RuleBasedUser(_task(*constraints, **kw), CATALOG, seed, patience=patience)


SCRIPT = [
    "Hi there!",
    "What genre would you like?",
    "How long should it be?",
    "How long should it be?",
    "How about The Endless Parade?",
    "Would The Lantern Keeper or Marigold Summer suit you?",
    "",
    "Do you like football?",
    "How about The Broken Jukebox?",
    "How about The Lantern Keeper?",
]


def _transcript(seed: int) -> list[str]:
    user = _user(COMEDY, SHORT_ON_ASK, GOOD_HIDDEN, seed=seed, patience=100)
    return [
        user.opening(),
        *(user.respond(m).text for m in SCRIPT),
        user.react_to_commit("good").text,
    ]


def test_same_task_and_seed_give_the_same_conversation():
    assert _transcript(7) == _transcript(7)


def test_different_seeds_word_the_conversation_differently():
    assert _transcript(1) != _transcript(2)


def test_make_rule_user_builds_a_rule_user():
    user = make_rule_user(_task(COMEDY), CATALOG, seed=0)
    assert user.kind == "rule" and isinstance(user.opening(), str)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_opening_states_every_volunteer_constraint_of_every_builtin_task(seed):
    for task in builtin().tasks:
        opening = make_rule_user(task, builtin().catalog, seed).opening().lower()
        for c in task.constraints_by(Reveal.VOLUNTEER):
            for word in spoken_values(c):
                assert word.lower() in opening, (task.id, str(c), opening)


def test_opening_does_not_read_the_persona_back():
    opening = _user(COMEDY).opening()
    assert "nurse" not in opening and "You are" not in opening


def test_asking_about_an_on_ask_attribute_reveals_it_in_every_builtin_task():
    for task in builtin().tasks:
        user = make_rule_user(task, builtin().catalog, 0)
        for c in task.constraints_by(Reveal.ON_ASK):
            reply = user.respond(ASK[FIELD_ATTRIBUTE[c.field]]).text.lower()
            assert all(w.lower() in reply for w in spoken_values(c)), (task.id, str(c), reply)


def test_asking_about_an_attribute_restates_its_volunteer_constraint():
    user = _user(COMEDY, SHORT_ON_ASK)
    user.respond(ASK[Attribute.LENGTH])
    assert describe(COMEDY).lower() in user.respond(ASK[Attribute.GENRE]).text.lower()


def test_unconstrained_attribute_gets_no_preference():
    user = _user(COMEDY)
    user.respond(ASK[Attribute.RECENCY])
    assert [a.kind for a in user.last_acts] == [K.NO_PREFERENCE]


def test_unconstrained_attribute_with_a_fitting_soft_preference_voices_it():
    user = _user(COMEDY, soft=["Nothing too long, I get sleepy.", "Witty banter."])
    reply = user.respond(ASK[Attribute.LENGTH]).text
    assert [a.kind for a in user.last_acts] == [K.SOFT] and "nothing too long" in reply.lower()


def test_attribute_with_only_a_hidden_constraint_gets_a_vague_answer():
    reply = _user(COMEDY, GOOD_HIDDEN).respond(ASK[Attribute.QUALITY]).text
    assert "I'll know it when I see it" in reply and "7" not in reply


def test_repeated_question_restates_the_same_facts_in_other_words():
    user = _user(COMEDY, SHORT_ON_ASK)
    first = user.respond(ASK[Attribute.LENGTH])
    again = user.respond(ASK[Attribute.LENGTH])
    assert user.last_acts[0].repeated and first.text != again.text
    assert (
        describe(SHORT_ON_ASK) in first.text.lower()
        and describe(SHORT_ON_ASK) in again.text.lower()
    )


def test_every_builtin_task_accepts_a_pitched_compliant_answer():
    suite = builtin()
    for task in suite.tasks:
        ok = compliant_answers(
            task, [suite.catalog.get(i) for i in answers(task, suite.catalog.items)]
        )
        if not ok:
            continue
        item = suite.catalog.get(ok[0])
        reply = make_rule_user(task, suite.catalog, 0).respond(f"How about {item.title}?")
        assert reply.accepted == item.id and not reply.left, (task.id, reply.text)


def test_title_breaking_a_volunteer_constraint_is_rejected_with_the_reason():
    user = _user(COMEDY)
    reply = user.respond("How about Gray Morning Rain?")
    assert reply.accepted is None and describe(COMEDY).lower() in reply.text.lower()


def test_title_breaking_a_hidden_constraint_is_rejected_with_a_hint():
    user = _user(COMEDY, GOOD_HIDDEN)
    reply = user.respond("How about The Broken Jukebox?")
    weak = CATALOG.get("weak")
    assert reply.accepted is None
    assert any(h in reply.text for h in hints_for(GOOD_HIDDEN, weak))
    assert "7" not in reply.text


def test_unasked_on_ask_constraint_is_hinted_and_once_asked_is_the_reason():
    user = _user(COMEDY, SHORT_ON_ASK)
    before = user.respond("How about The Endless Parade?").text
    assert describe(SHORT_ON_ASK) not in before and "100" not in before
    user.respond(ASK[Attribute.LENGTH])
    after = user.respond("How about The Endless Parade?").text
    assert describe(SHORT_ON_ASK) in after.lower()


def test_watched_title_is_declined_as_already_seen():
    user = _user(COMEDY)
    reply = user.respond("What about Paper Boats Again?")
    assert reply.accepted is None and [a.kind for a in user.last_acts] == [K.SEEN]


def test_have_you_seen_an_unwatched_fitting_title_is_no_then_yes():
    user = _user(COMEDY)
    reply = user.respond("Have you seen The Lantern Keeper?")
    assert [a.kind for a in user.last_acts] == [K.NOT_SEEN, K.ACCEPT] and reply.accepted == "good"


def test_two_titles_at_once_ask_for_one_at_a_time():
    user = _user(COMEDY)
    reply = user.respond("Would The Lantern Keeper or Marigold Summer suit you?")
    assert reply.accepted is None and [a.kind for a in user.last_acts] == [K.ONE_AT_A_TIME]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("", K.EMPTY),
        ("   ", K.EMPTY),
        ("Who won the football last night?", K.OFF_TOPIC),
        ("Hello!", K.GREETING),
    ],
)
def test_empty_off_topic_and_greeting_messages(text, kind):
    user = _user(COMEDY)
    user.respond(text)
    assert [a.kind for a in user.last_acts] == [kind]


def test_empty_message_asks_whether_the_agent_said_something():
    texts = {_user(COMEDY, seed=s).respond("").text for s in range(10)}
    assert "Sorry, did you say something?" in texts


def test_off_topic_reply_steers_back_to_the_movie():
    reply = _user(COMEDY).respond("What's the capital of France?").text
    assert "movie" in reply.lower()


@pytest.mark.parametrize("patience", [1, 3, 6])
def test_user_leaves_after_patience_fruitless_turns(patience):
    user = _user(COMEDY, patience=patience)
    replies = [user.respond("") for _ in range(patience)]
    assert [r.left for r in replies] == [False] * (patience - 1) + [True]
    assert user.respond("How about The Lantern Keeper?").left


def test_turns_that_tell_something_new_do_not_use_up_patience():
    user = _user(COMEDY, SHORT_ON_ASK, GOOD_HIDDEN, patience=2)
    for attribute, question in ASK.items():  # every first answer is new information...
        if attribute is not Attribute.GENRE:  # ...except the genre, said in the opening
            assert not user.respond(question).left
    assert user.fruitless_turns == 0


def test_default_patience_is_six():
    user = make_rule_user(_task(COMEDY), CATALOG, 0)
    assert [user.respond("ok").left for _ in range(6)] == [False] * 5 + [True]


def test_committed_fitting_title_is_accepted_with_thanks():
    reply = _user(COMEDY).react_to_commit("good")
    assert reply.accepted == "good" and not reply.left


def test_committed_wrong_title_is_not_accepted():
    user = _user(COMEDY)
    reply = user.react_to_commit("drama")
    assert reply.accepted is None and describe(COMEDY).lower() in reply.text.lower()


def test_abstention_on_a_task_without_answers_is_welcomed():
    user = _user(COMEDY, no_valid_recommendation=True)
    user.react_to_commit(None)
    assert [a.kind for a in user.last_acts] == [K.ABSTAIN_OK]


def test_user_is_gone_after_the_commit():
    user = _user(COMEDY)
    user.react_to_commit("good")
    assert user.respond("Anything else?").left


def test_a_missed_commit_with_commits_left_is_rejected_and_the_talk_goes_on():
    user = _user(COMEDY, protocol={"max_recommendations": 2})
    first = user.react_to_commit("drama")
    assert first.accepted is None and [a.kind for a in user.last_acts] == [K.REJECT]
    assert not user.respond("Sorry! How about The Lantern Keeper?").left
    assert user.react_to_commit("good").accepted == "good"


# --- a title two items share -----------------------------------------------------------

SHARED = Catalog.from_items(
    [
        *CATALOG.items,
        _item("twin_old", "Twin Harbor", release_date=date(1987, 3, 1), genres=["Drama"]),
        _item("twin_new", "Twin Harbor", release_date=date(2019, 3, 1)),
    ]
)


def _shared_user() -> RuleBasedUser:
    return RuleBasedUser(_task(COMEDY), SHARED, 0)


def test_a_title_two_items_share_is_unclear_never_the_one_that_suits():
    user = _shared_user()
    reply = user.respond("How about Twin Harbor?")
    assert reply.accepted is None and [a.kind for a in user.last_acts] == [K.UNCLEAR]


def test_a_year_that_tells_shared_titles_apart_picks_one():
    user = _shared_user()
    assert user.respond("How about Twin Harbor (2019)?").accepted == "twin_new"
    user = _shared_user()
    user.respond("How about Twin Harbor (1987)?")
    assert [a.kind for a in user.last_acts] == [K.REJECT]  # the drama, not the comedy


def test_a_year_no_item_of_the_title_has_is_unclear():
    user = _shared_user()
    user.respond("How about Twin Harbor (2003)?")
    assert [a.kind for a in user.last_acts] == [K.UNCLEAR]
