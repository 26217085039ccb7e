"""The scripted agent's answers to a user's questions about a pitched title."""

from __future__ import annotations

from taurec.clients.agents.recommendation.questions import answer_question

ITEM = {
    "title": "Night Train",
    "director": "Mara Quill",
    "runtime": 95,
    "year": 2015,
    "cast": ["Ann Lee", "Bo Park"],
    "content_rating": "PG",
    "rating": 7.5,
    "streaming_services": ["Netflix"],
    "original_language": "fr",
}


def test_a_question_about_the_director_is_answered_with_the_name():
    assert "Mara Quill" in (answer_question("Who directed Night Train?", ITEM) or "")


def test_a_question_about_length_is_answered_in_minutes():
    assert "95 minutes" in (answer_question("How long is Night Train?", ITEM) or "")


def test_a_question_about_language_names_the_language():
    assert "French" in (answer_question("What language is Night Train in?", ITEM) or "")


def test_a_reply_without_a_question_gets_no_answer():
    assert answer_question("How long I have waited for this.", ITEM) is None
