"""nlu: which attributes a message asks about, which titles it names, what kind it is."""

from __future__ import annotations

from datetime import date

import pytest

from taurec.catalog.item import Item
from taurec.server.recommendation.simulator.nlu import Attribute, MessageReader, attributes_in

A = Attribute


def _item(item_id: str, title: str, **fields) -> Item:
    base = dict(
        release_date=date(2010, 1, 1), runtime=100, rating=7.0, vote_count=10, content_rating="PG"
    )
    return Item(id=item_id, title=title, **(base | fields))


READER = MessageReader(
    [
        _item("a", "The Silent Harbour", cast=["Halvard Morrard"], director="Otto Marovic"),
        _item("b", "Night Train to Ulmfell"),
        _item("c", "Home"),
        _item("d", "The Ashen Bell"),
    ]
)


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("What genre are you in the mood for?", A.GENRE),
        ("What kind of movie do you feel like?", A.GENRE),
        ("Would a comedy work?", A.GENRE),
        ("How long can it be?", A.LENGTH),
        ("Is there a maximum runtime?", A.LENGTH),
        ("Do you have about two hours?", A.LENGTH),
        ("Is this for the kids?", A.MATURITY),
        ("Any content rating limits?", A.MATURITY),
        ("Is PG-13 okay?", A.MATURITY),
        ("Would an R-rated film be fine?", A.MATURITY),
        ("Should it be family-friendly?", A.MATURITY),
        ("How old are you?", A.MATURITY),
        ("Do you want something highly rated?", A.QUALITY),
        ("Do reviews matter to you?", A.QUALITY),
        ("Do you care about ratings?", A.QUALITY),
        ("Something popular, or a hidden gem?", A.QUALITY),
        ("Which streaming services do you have?", A.SERVICES),
        ("Do you have Netflix?", A.SERVICES),
        ("Is Disney+ an option for you?", A.SERVICES),
        ("Do you want something recent?", A.RECENCY),
        ("Any preference on release year?", A.RECENCY),
        ("Are you into older classics from the 80s?", A.RECENCY),
        ("How old can the movie be?", A.RECENCY),
        ("Any favourite director?", A.PEOPLE),
        ("Any actors you love?", A.PEOPLE),
        ("Are you a fan of Halvard Morrard?", A.PEOPLE),
        ("Do you mind subtitles?", A.LANGUAGE),
        ("Should it be in English?", A.LANGUAGE),
        ("Any preferred language?", A.LANGUAGE),
        ("What have you watched recently?", A.HISTORY),
        ("Anything you've already seen?", A.HISTORY),
        ("Anything else I should know?", A.OTHER),
        ("Any other preferences?", A.OTHER),
    ],
)
def test_recognises_the_attribute_asked_about(text, attribute):
    assert attribute in READER.read(text).asked


def test_reads_several_attributes_in_one_message():
    msg = READER.read("How long should it be, and would you like something recent in Spanish?")
    assert {A.LENGTH, A.RECENCY, A.LANGUAGE} <= msg.asked


def test_an_eight_year_old_viewer_is_about_maturity_not_release_year():
    assert attributes_in("It's for an 8-year-old") == {A.MATURITY}


def test_a_question_about_one_attribute_drops_the_generic_other():
    assert READER.read("Any other preferences on length?").asked == {A.LENGTH}


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("What genre?", True),
        ("Tell me your preferred runtime.", True),
        ("Would you like a comedy", True),
        ("I'll search for comedies.", False),
        ("Got it, thanks.", False),
    ],
)
def test_tells_questions_from_statements(text, question):
    assert READER.read(text).is_question is question


def test_attributes_in_a_statement_are_mentioned_not_asked():
    msg = READER.read("I'll look for comedies under 100 minutes.")
    assert msg.asked == frozenset() and {A.GENRE, A.LENGTH} <= msg.mentioned


def test_finds_an_exact_title_case_insensitively():
    (ref,) = READER.read("have you heard of THE ASHEN BELL?").titles
    assert ref.item_ids == ("d",) and not ref.fuzzy


@pytest.mark.parametrize(
    "text",
    ["How about The Silent Harbor?", "I'd suggest 'Silent Habour'.", "Maybe The Silent Harbour!"],
)
def test_finds_a_near_miss_spelling_fuzzily(text):
    (ref,) = READER.read(text).titles
    assert ref.item_ids == ("a",)


@pytest.mark.parametrize(
    "text",
    [
        "Silent Night is a song.",
        "The Sultan Harvest is not here.",
        "Is a harbour scene ok?",
        "I work from home.",
    ],
)
def test_unrelated_text_names_no_title(text):
    assert READER.read(text).titles == ()


def test_a_pitch_names_a_title_with_a_cue():
    msg = READER.read("I'd recommend Night Train to Ulmfell. It's a gentle drama.")
    assert msg.pitches and [r.item_ids for r in msg.titles] == [("b",)]


def test_describing_a_pitch_does_not_count_as_asking():
    msg = READER.read("How about The Ashen Bell? It's 95 minutes and rated PG.")
    assert msg.pitches and msg.asked == frozenset()


def test_two_titles_in_one_message_are_both_found():
    msg = READER.read("Would The Ashen Bell or Night Train to Ulmfell work?")
    assert [r.item_ids for r in msg.titles] == [("d",), ("b",)]


def test_have_you_seen_a_title_is_recognised():
    msg = READER.read("Have you seen The Ashen Bell?")
    assert msg.asks_if_seen and [r.item_ids for r in msg.titles] == [("d",)]


def test_empty_and_whitespace_messages_are_empty():
    assert READER.read("").empty and READER.read("  \n ").empty and READER.read("...").empty


def test_off_topic_message_is_not_on_topic():
    assert not READER.read("What's the capital of France?").on_topic
    assert READER.read("Let me search the catalog for you.").on_topic


def test_greeting_is_recognised():
    assert READER.read("Hello! How can I help you today?").greeting


def test_a_message_read_again_is_not_looked_up_again(monkeypatch):
    reader = MessageReader([_item("a", "The Silent Harbour")])
    first = reader.read("How about The Silent Harbor?")
    looked_up = []
    monkeypatch.setattr(reader, "titles", lambda text: looked_up.append(text) or [])
    assert reader.read("How about The Silent Harbor?") == first
    assert looked_up == []
    reader.read("Something else?")
    assert looked_up == ["Something else?"]
