"""Dialogues from outside in their published layouts, made up here in each format: an
IARD-labelled DialogueKit file, ReDial's JSONL and INSPIRED's TSV each read as annotated
dialogues, give transition matrices, score, and give tasks over a catalog."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from taurec.catalog.errors import DataError
from taurec.catalog.io import CatalogMeta, write_catalog_file
from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.clients.cli.main import app as taurec
from taurec.evaluator.recommendation.dialogues import score_dialogues
from taurec.server.recommendation.simulator.transitions import transition_matrices
from taurec.tasks.dialogues.inspired import read_inspired
from taurec.tasks.dialogues.needs import tasks_from_dialogues
from taurec.tasks.dialogues.reading import read_annotated_dialogues
from taurec.tasks.dialogues.redial import read_redial
from taurec.tasks.recommendation.validate import check_task

runner = CliRunner()


def _film(item_id: str, title: str, year: int, genres: list[str]) -> Item:
    return Item(
        id=item_id, title=title, release_date=date(year, 1, 1), runtime=0, genres=genres,
        rating=7.0, vote_count=100, content_rating="NR",
    )  # fmt: skip


CATALOG = Catalog.from_items(
    [
        _film("m1", "Moonfall Drift", 2001, ["Sci-Fi", "Drama"]),
        _film("m2", "Copper Sky", 1999, ["Sci-Fi"]),
        _film("m3", "Harbor Lights", 2005, ["Drama", "Romance"]),
        _film("m4", "Quiet Orbit", 2003, ["Sci-Fi", "Thriller"]),
    ]
)

IARD: list[dict[str, Any]] = [
    {
        "conversation_id": "1",
        "conversation": [
            {"participant": "USER", "utterance": "I'd like some sci-fi.", "dialogue_acts": [
                {"intent": "IQU", "slot_values": []},
                {"intent": "PRO", "slot_values": [["GENRE", "Sci-Fi", None, None]]}]},
            {"participant": "AGENT", "utterance": "Try Moonfall Drift (2001).", "dialogue_acts": [
                {"intent": "REC-S", "slot_values": [["TITLE", "Moonfall Drift (2001)", None, None]]}]},
            {"participant": "USER", "utterance": "Sounds good! Who is in it?", "dialogue_acts": [
                {"intent": "ACC", "slot_values": []},
                {"intent": "INQ", "slot_values": [["ACTOR", "", None, None]]}]},
        ],
    }
]  # fmt: skip

REDIAL = [
    {
        "conversationId": "391",
        "initiatorWorkerId": 0,
        "respondentWorkerId": 1,
        "movieMentions": {"11": "Copper Sky (1999)", "12": "Quiet Orbit (2003)"},
        "initiatorQuestions": {
            "11": {"suggested": 0, "seen": 1, "liked": 1},
            "12": {"suggested": 1, "seen": 0, "liked": 1},
        },
        "messages": [
            {"senderWorkerId": 0, "text": "Hi! I loved @11", "timeOffset": 0},
            {"senderWorkerId": 0, "text": "anything like it?", "timeOffset": 1},
            {"senderWorkerId": 1, "text": "Have you seen @12 ?", "timeOffset": 2},
            {"senderWorkerId": 0, "text": "No, @12 sounds great, thanks!", "timeOffset": 3},
        ],
    }
]

INSPIRED = (
    "dialog_id\tutt_id\tspeaker\ttext\tmovies\tgenres\n"
    "d1\t0\tSEEKER\tHello, I like dramas.\t\tdrama\n"
    "d1\t1\tRECOMMENDER\tWhat did you watch lately?\t\t\n"
    "d1\t2\tSEEKER\tHarbor Lights.\tHarbor Lights\t\n"
    "d1\t3\tRECOMMENDER\tThen Moonfall Drift!\tMoonfall Drift\t\n"
    "d1\t4\tRECOMMENDER\tIt is a drama too.\t\t\n"
)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    iard = tmp_path / "iard.json"
    iard.write_bytes(orjson.dumps(IARD))
    redial = tmp_path / "train_data.jsonl"
    redial.write_bytes(b"".join(orjson.dumps(c) + b"\n" for c in REDIAL))
    inspired = tmp_path / "train.tsv"
    inspired.write_text(INSPIRED)
    return {"iard": iard, "redial": redial, "inspired": inspired}


def test_redial_mentions_become_titles_and_its_labels_verdicts(files):
    (dialogue,) = read_redial(files["redial"])
    user, agent, reply = dialogue.utterances
    assert user.text == "Hi! I loved Copper Sky (1999) anything like it?"  # merged, mentions filled
    assert user.intents == ("start", "disclose") and user.acts[1].items == ("Copper Sky (1999)",)
    assert agent.acts[0].intent == "recommend" and agent.acts[0].items == ("Quiet Orbit (2003)",)
    assert reply.intents == ("accept",)  # suggested by the agent, liked


def test_inspired_rows_merge_and_name_genres_and_movies(files):
    (dialogue,) = read_inspired(files["inspired"])
    assert [u.participant for u in dialogue.utterances] == ["user", "agent", "user", "agent"]
    assert dialogue.utterances[0].acts[1].value == "drama"
    assert dialogue.utterances[3].text == "Then Moonfall Drift! It is a drama too."
    assert dialogue.utterances[3].acts[0].items == ("Moonfall Drift",)


def test_an_inspired_file_without_its_columns_is_one_clear_error(tmp_path):
    bad = tmp_path / "x.tsv"
    bad.write_text("a\tb\n1\t2\n")
    with pytest.raises(DataError, match="dialog_id"):
        read_inspired(bad)


@pytest.mark.parametrize("fmt", ["iard", "redial"])
def test_each_format_gives_transitions_scores_and_tasks(files, fmt):
    dialogues = read_annotated_dialogues(files[fmt])
    matrices = transition_matrices(dialogues)
    assert matrices.transitions >= 1 and "recommend" in matrices.single
    (scored,) = score_dialogues(fmt, dialogues).per_dialogue
    assert scored["metrics"]["sr"] == 1.0 and scored["metrics"]["srrr"] == 1.0
    report = tasks_from_dialogues(dialogues, CATALOG)
    (task,) = report.tasks
    assert task.constraints[0].value == "Sci-Fi"
    assert task.requests == (["cast"] if fmt == "iard" else [])
    assert not check_task(task, CATALOG, strict=True).errors


def test_inspired_has_no_verdicts_so_no_task_and_no_success(files):
    dialogues = read_annotated_dialogues(files["inspired"])
    assert score_dialogues("inspired", dialogues).per_dialogue[0]["metrics"]["sr"] == 0.0
    report = tasks_from_dialogues(dialogues, CATALOG)
    assert report.tasks == [] and report.no_accepted_title == 1


@pytest.mark.parametrize("fmt", ["iard", "redial", "inspired"])
def test_the_commands_import_score_and_build_a_suite(files, tmp_path, fmt):
    from taurec.evaluator.cli.main import app as evaluator

    imported = tmp_path / f"{fmt}.jsonl"
    result = runner.invoke(taurec, ["dialogues", "import", str(files[fmt]), "--out", str(imported)])
    assert result.exit_code == 0, result.output
    scored = runner.invoke(evaluator, ["dialogues", str(files[fmt]), "--format", "json"])
    assert scored.exit_code == 0 and orjson.loads(scored.stdout)[0]["dialogues"] == 1
    if fmt == "inspired":
        return
    catalog = tmp_path / "films.json"
    write_catalog_file(catalog, CatalogMeta(name="films"), list(CATALOG))
    suite = tmp_path / f"{fmt}-suite"
    made = runner.invoke(
        taurec,
        ["dialogues", "tasks", str(files[fmt]), "--catalog", str(catalog), "--out", str(suite)],
    )
    assert made.exit_code == 0, made.output
    valid = runner.invoke(taurec, ["tasks", "validate", str(suite)])
    assert valid.exit_code == 0, valid.output
