"""Reading annotated dialogues: taurec episode logs (acts on both sides) and the JSONL
format of annotated dialogues; a path with none is an error naming what was expected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from taurec.catalog.errors import DataError
from taurec.server.recommendation.simulator.transitions import transition_matrices
from taurec.tasks.dialogues.reading import read_annotated_dialogues


def _acts(*intents: str) -> list[dict[str, Any]]:
    return [{"intent": i, "slot": None, "value": None, "items": []} for i in intents]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


LOG = [
    {"type": "header", "episode_id": "e1"},
    {"type": "user_message", "text": "hi", "acts": _acts("start", "disclose")},
    {"type": "agent_message", "text": "Which genre?", "delivered": True, "acts": _acts("elicit")},
    {"type": "tool_call", "name": "search"},
    {"type": "user_message", "text": "none", "acts": _acts("dont_know")},
    {"type": "agent_message", "text": "dropped", "delivered": False, "acts": _acts("other")},
    {"type": "agent_message", "text": "Try X", "delivered": True, "acts": _acts("recommend")},
    {"type": "user_message", "text": "ok", "acts": _acts("accept")},
]


def test_an_episode_log_is_a_dialogue_of_its_delivered_messages(tmp_path: Path) -> None:
    _write(tmp_path / "run" / "e1.jsonl", LOG)
    (dialogue,) = read_annotated_dialogues(tmp_path)
    assert [(u.participant, u.intents) for u in dialogue.utterances] == [
        ("user", ("start", "disclose")),
        ("agent", ("elicit",)),
        ("user", ("dont_know",)),
        ("agent", ("recommend",)),
        ("user", ("accept",)),
    ]
    m = transition_matrices([dialogue])
    assert m.single == {"elicit": {"dont_know": 1.0}, "recommend": {"accept": 1.0}}


def test_a_message_without_acts_breaks_the_pair(tmp_path: Path) -> None:
    log = [*LOG[:3], {"type": "user_message", "text": "?"}, *LOG[5:]]
    _write(tmp_path / "e.jsonl", log)
    m = transition_matrices(read_annotated_dialogues(tmp_path))
    assert "elicit" not in m.single


def test_a_jsonl_file_of_annotated_dialogues_is_read(tmp_path: Path) -> None:
    line = {
        "utterances": [
            {"participant": "agent", "intents": ["other"]},
            {"participant": "user", "intents": ["inquire"]},
        ]
    }
    path = _write(tmp_path / "dialogues.jsonl", [line, line])
    dialogues = read_annotated_dialogues(path)
    assert len(dialogues) == 2
    assert transition_matrices(dialogues).single == {"other": {"inquire": 1.0}}


def test_a_bad_annotated_dialogue_names_its_line_and_field(tmp_path: Path) -> None:
    bad = {"utterances": [{"participant": "bot", "intents": []}]}
    path = _write(tmp_path / "d.jsonl", [bad])
    with pytest.raises(
        DataError, match=r"d.jsonl: dialogue 1: field 'utterances\[0\].participant'"
    ):
        read_annotated_dialogues(path)


def test_a_folder_without_annotated_dialogues_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path / "old.jsonl", [{"type": "user_message", "text": "hi"}])
    with pytest.raises(DataError, match="no annotated dialogues"):
        read_annotated_dialogues(tmp_path)


def test_a_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file or folder"):
        read_annotated_dialogues(tmp_path / "nowhere")


def test_a_log_cut_short_is_read_up_to_its_last_whole_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "e.jsonl", LOG)
    path.write_bytes(path.read_bytes() + b'{"type": "user_mess')
    (dialogue,) = read_annotated_dialogues(tmp_path)
    assert len(dialogue.utterances) == 5


def test_a_line_that_is_not_json_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_text('{"type": "header"}\nnot json\n{"type": "end"}\n')
    with pytest.raises(DataError, match=r"e\.jsonl: line 2 is not JSON"):
        read_annotated_dialogues(path)
