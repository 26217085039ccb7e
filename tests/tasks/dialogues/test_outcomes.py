"""Dialogues from outside scored by their own labels: ReDial's seeker answers, INSPIRED's
case label and UserSimCRS's `accepted_recommendations` / `recommendation_outcome` become
the dialogue's outcome, beside what its acts give; files of INSPIRED's and MovieBot's
label sets, or of any UserSimCRS interaction model, load. Every file here is made up in
the published layout."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import orjson
import pytest
from support.hang_guard import HANG_GUARD_S
from typer.testing import CliRunner

from taurec.catalog.errors import DataError
from taurec.evaluator.cli.main import app as evaluator
from taurec.evaluator.recommendation.dialogues import score_dialogues
from taurec.server.recommendation.simulator.intent_schema import IntentSchema
from taurec.tasks.dialogues.dialoguekit import dialogues_from_dialoguekit
from taurec.tasks.dialogues.inspired import read_inspired
from taurec.tasks.dialogues.labels import read_interaction_model
from taurec.tasks.dialogues.redial import read_redial

runner = CliRunner()

#: The seeker likes the movie the recommender suggested, but never repeats its title.
REDIAL: dict[str, Any] = {
    "conversationId": "20001",
    "initiatorWorkerId": 7,
    "respondentWorkerId": 8,
    "movieMentions": {"501": "Copper Sky (1999)", "502": "Quiet Orbit (2003)"},
    "initiatorQuestions": {
        "501": {"suggested": 0, "seen": 1, "liked": 1},
        "502": {"suggested": 1, "seen": 0, "liked": 1},
    },
    "messages": [
        {"senderWorkerId": 7, "text": "hey, I loved @501", "timeOffset": 0},
        {"senderWorkerId": 8, "text": "then @502 is for you", "timeOffset": 5},
        {"senderWorkerId": 7, "text": "ooh ok, thanks, I'll check that out", "timeOffset": 9},
    ],
}
INSPIRED = (
    "dialog_id\tutt_id\tspeaker\ttext\tmovies\tgenres\tfine_label\tcoarse_label\n"
    "d1\t1\tRECOMMENDER\tWhat do you like?\t\t\taccept_rating_good\taccept_new\n"
    "d1\t2\tSEEKER\tDramas.\t\tdrama\taccept_rating_good\taccept_new\n"
    "d1\t3\tRECOMMENDER\tWatch Harbor Lights.\tHarbor Lights\t\taccept_rating_good\taccept_new\n"
    "d1\t4\tSEEKER\tOkay!\t\t\taccept_rating_good\taccept_new\n"
    "d2\t1\tRECOMMENDER\tAny genre?\t\t\treject\treject_new\n"
    "d2\t2\tSEEKER\tHorror.\t\thorror\treject\treject_new\n"
    "d2\t3\tRECOMMENDER\tTry Moonfall Drift.\tMoonfall Drift\t\treject\treject_new\n"
)
#: A dialogue labelled as UserSimCRS labels INSPIRED, with its outcome in the metadata.
INSPIRED_LABELLED: list[dict[str, Any]] = [
    {
        "conversation_id": "i1",
        "metadata": {"recommendation_outcome": "accept_others", "recommended_movie": "Copper Sky"},
        "conversation": [
            {"participant": "AGENT", "utterance": "Hi!", "dialogue_acts": [
                {"intent": "greeting", "slot_values": []}]},
            {"participant": "USER", "utterance": "I like sci-fi.", "dialogue_acts": [
                {"intent": "disclose_opinion", "slot_values": []}]},
            {"participant": "AGENT", "utterance": "Copper Sky is great.", "dialogue_acts": [
                {"intent": "recommend", "slot_values": [["TITLE", "Copper Sky", None, None]]}]},
            {"participant": "USER", "utterance": "I'll watch it.", "dialogue_acts": [
                {"intent": "accept_recommendation", "slot_values": []}]},
        ],
    }
]  # fmt: skip
MOVIEBOT: list[dict[str, Any]] = [
    {
        "conversation_id": "m1",
        "conversation": [
            {"participant": "AGENT", "utterance": "Shall we start?", "dialogue_acts": [
                {"intent": "DISCLOSE.NON-DISCLOSE", "slot_values": []}]},
            {"participant": "USER", "utterance": "A thriller.", "dialogue_acts": [
                {"intent": "DISCLOSE", "slot_values": [["GENRES", "thriller", None, None]]}]},
            {"participant": "AGENT", "utterance": "How about Quiet Orbit?", "dialogue_acts": [
                {"intent": "REVEAL", "slot_values": [["TITLE", "Quiet Orbit", None, None]]}]},
            {"participant": "USER", "utterance": "I like it.", "dialogue_acts": [
                {"intent": "NOTE.LIKE", "slot_values": []}]},
        ],
    }
]  # fmt: skip
#: An interaction model in UserSimCRS's layout, with labels of its own.
MODEL = """
name: made_up
required_intents:
  INTENT_START: hello
  INTENT_STOP: bye
  INTENT_ITEM_CONSUMED: watched
  INTENT_LIKE: yes_please
  INTENT_DISLIKE: no_thanks
  INTENT_NEUTRAL: meh
  INTENT_DISCLOSE: i_want
  INTENT_INQUIRE: what_about
  INTENT_DONT_KNOW: DONT-KNOW
  INTENT_YES: YES
  INTENT_NO: NO
user_intents:
  hello:
    expected_agent_intents: [ask]
  i_want:
    expected_agent_intents: [ask]
  love_it:
    expected_agent_intents: [suggest]
    preference_contingent: POSITIVE
  yes_please:
    expected_agent_intents: [suggest]
agent_elicit_intents: [ask]
agent_set_retrieval: [suggest]
agent_inquire_intents: [ask, details]
"""


def test_a_redial_seeker_who_liked_a_suggested_movie_succeeds_by_its_labels(tmp_path):
    path = tmp_path / "test_data.jsonl"
    path.write_bytes(orjson.dumps(REDIAL) + b"\n")
    (dialogue,) = read_redial(path)
    assert dialogue.outcome is not None and dialogue.outcome.accepted
    assert dialogue.outcome.items == ("Quiet Orbit (2003)",)
    (scored,) = score_dialogues("redial", [dialogue]).per_dialogue
    assert scored["metrics"]["sr"] == 0.0  # the text never repeats the title
    assert score_dialogues("redial", [dialogue]).means["sr_labels"] == 1.0


def test_a_redial_conversation_without_the_seekers_answers_has_no_outcome(tmp_path):
    path = tmp_path / "test_data.jsonl"
    path.write_bytes(orjson.dumps({**REDIAL, "initiatorQuestions": {}}) + b"\n")
    (dialogue,) = read_redial(path)
    assert dialogue.outcome is None


def test_inspired_case_labels_are_each_dialogues_outcome(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text(INSPIRED)
    d1, d2 = read_inspired(path)
    assert (
        d1.outcome is not None and d1.outcome.accepted and "accept_rating_good" in d1.outcome.source
    )
    assert d2.outcome is not None and not d2.outcome.accepted
    scores = score_dialogues("inspired", [d1, d2])
    assert scores.means["sr_labels"] == 0.5 and scores.sr_source == "labels"


def test_usersimcrs_inspired_and_moviebot_files_load_with_their_labels():
    (inspired,) = dialogues_from_dialoguekit(INSPIRED_LABELLED, source="inspired.json")
    assert [u.intents for u in inspired.utterances] == [
        ("other",),  # the agent greets: no start of the user
        ("disclose",),
        ("recommend",),
        ("accept",),
    ]
    assert inspired.outcome is not None and inspired.outcome.items == ("Copper Sky",)
    (moviebot,) = dialogues_from_dialoguekit(MOVIEBOT, source="moviebot.json")
    assert [u.intents for u in moviebot.utterances][2:] == [("recommend",), ("accept",)]
    assert score_dialogues("m", [moviebot]).means["sr"] == 1.0


def test_a_label_no_set_knows_is_one_error_naming_it():
    bad = [{**MOVIEBOT[0], "conversation": [{"participant": "USER", "utterance": "x",
            "dialogue_acts": [{"intent": "WAVE.HANDS", "slot_values": []}]}]}]  # fmt: skip
    with pytest.raises(DataError, match=r"utterance 1: unknown user intent 'WAVE\.HANDS'"):
        dialogues_from_dialoguekit(bad, source="x.json")


def test_an_interaction_model_says_what_its_labels_mean(tmp_path):
    model = tmp_path / "made_up.yaml"
    model.write_text(MODEL)
    labels = read_interaction_model(model)
    assert labels.intent("love_it", "user") == "accept"  # preference_contingent POSITIVE
    assert labels.intent("no_thanks", "user") == "reject"
    assert labels.intent("suggest", "agent") == "recommend"
    assert (
        labels.intent("ask", "agent") == "elicit" and labels.intent("details", "agent") == "inquire"
    )
    assert labels.intent("anything", "agent") == "other"


def test_an_interaction_model_loads_as_the_agenda_users_schema(tmp_path):
    model = tmp_path / "made_up.yaml"
    model.write_text(MODEL)
    schema = IntentSchema.load(model)
    assert schema.intent("like") == "accept" and schema.intent("item_consumed") == "seen"
    assert schema.agent_set_retrieval == ("recommend",)
    assert schema.expects("accept", {"recommend"}) and schema.expects("disclose", {"elicit"})


def test_evaluator_dialogues_shows_both_srs_and_warns_of_a_file_with_no_outcome(tmp_path):
    labelled = tmp_path / "test.tsv"
    labelled.write_text(INSPIRED)
    bare = tmp_path / "bare.jsonl"
    bare.write_bytes(
        orjson.dumps({"utterances": [{"participant": "agent", "intents": ["recommend"]},
                                      {"participant": "user", "intents": ["other"]}]}) + b"\n"
    )  # fmt: skip
    entry = "import sys; from taurec.evaluator.cli.main import main; sys.exit(main())"
    command = [sys.executable, "-c", entry, "dialogues"]
    done = subprocess.run(
        [*command, str(labelled), str(bare), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )
    assert done.returncode == 0, done.stderr
    first, second = orjson.loads(done.stdout)
    assert first["sr_source"] == "labels" and first["means"]["sr_labels"] == 0.5
    assert second["sr_source"] == "none" and second["means"]["sr_labels"] is None
    assert "bare.jsonl" in done.stderr and "no dialogue carries" in done.stderr


def test_evaluator_dialogues_reads_labels_with_a_given_interaction_model(tmp_path):
    model = tmp_path / "made_up.yaml"
    model.write_text(MODEL)
    doc = [{"conversation_id": "x", "conversation": [
        {"participant": "AGENT", "utterance": "Quiet Orbit?", "dialogue_acts": [
            {"intent": "suggest", "slot_values": [["TITLE", "Quiet Orbit", None, None]]}]},
        {"participant": "USER", "utterance": "Love it!", "dialogue_acts": [
            {"intent": "love_it", "slot_values": []}]}]}]  # fmt: skip
    path = tmp_path / "own.json"
    path.write_bytes(orjson.dumps(doc))
    result = runner.invoke(
        evaluator, ["dialogues", str(path), "--schema", str(model), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)[0]["means"]["sr"] == 1.0
