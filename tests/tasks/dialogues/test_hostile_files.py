"""Hostile dialogue files (deep JSON, a number of thousands of digits, Latin-1 bytes, a
TSV field past csv's limit, records of the wrong types): each is one line and exit 2 from
`evaluator dialogues` and `taurec dialogues import`, never a traceback; and merging a
speaker's consecutive messages is linear in them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from support.hang_guard import finishes
from typer.testing import CliRunner

from taurec.clients.cli.main import app as taurec
from taurec.evaluator.cli.main import app as evaluator
from taurec.tasks.dialogues.inspired import read_inspired
from taurec.tasks.dialogues.redial import read_redial

runner = CliRunner()
HUGE = "9" * 5000

REDIAL: dict[str, Any] = {
    "conversationId": "391",
    "initiatorWorkerId": 0,
    "respondentWorkerId": 1,
    "movieMentions": {"11": "Copper Sky (1999)"},
    "initiatorQuestions": {"11": {"suggested": 1, "seen": 0, "liked": 1}},
    "messages": [
        {"senderWorkerId": 0, "text": "Hi! café", "timeOffset": 0},
        {"senderWorkerId": 1, "text": "Have you seen @11 ?", "timeOffset": 1},
    ],
}
DIALOGUEKIT: list[dict[str, Any]] = [
    {
        "conversation_id": "1",
        "conversation": [
            {"participant": "USER", "utterance": "Un café, s'il vous plaît.",
             "dialogue_acts": [{"intent": "IQU", "slot_values": []}]},
        ],
    }
]  # fmt: skip
INSPIRED_HEAD = "dialog_id\tutt_id\tspeaker\ttext\tmovies\tgenres\n"


def _redial(**changes: Any) -> bytes:
    doc = copy.deepcopy(REDIAL)
    doc.update(changes)
    return orjson.dumps(doc) + b"\n"


def _dialoguekit(change: Callable[[dict[str, Any]], None]) -> bytes:
    doc = copy.deepcopy(DIALOGUEKIT)
    change(doc[0])
    return orjson.dumps(doc)


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d.update({key: value})


def _first_utterance(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["conversation"][0].update({key: value})


#: name -> (file name, bytes)
HOSTILE: dict[str, tuple[str, bytes]] = {
    "deep jsonl": ("deep.jsonl", b"[" * 100_000 + b"]" * 100_000 + b"\n{}\n"),
    "deep dialoguekit": ("deep.json", b"[" * 100_000 + b"]" * 100_000),
    "deep utterances": (
        "deep-u.jsonl",
        b'{"utterances": ' + b"[" * 5_000 + b"]" * 5_000 + b"}\n{}\n",
    ),
    "huge redial id": ("huge.jsonl", _redial().replace(b'"391"', HUGE.encode())),
    "huge dialoguekit id": (
        "huge.json",
        _dialoguekit(_set("conversation_id", 0)).replace(
            b'"conversation_id":0', b'"conversation_id":' + HUGE.encode()
        ),
    ),
    "latin-1 redial": ("latin1.jsonl", _redial().decode().encode("latin-1")),
    "latin-1 dialoguekit": ("latin1.json", _dialoguekit(lambda d: None).decode().encode("latin-1")),
    "latin-1 inspired": (
        "latin1.tsv",
        (INSPIRED_HEAD + "d1\t0\tSEEKER\tUn café\t\t\n").encode("latin-1"),
    ),
    "200 kB tsv field": (
        "wide.tsv",
        (INSPIRED_HEAD + "d1\t0\tSEEKER\t" + "x" * 200_000 + "\t\t\n").encode(),
    ),
    "redial messages of numbers": ("m.jsonl", _redial(messages=[1, 2, 3])),
    "redial mentions a list": ("mm.jsonl", _redial(movieMentions=["a", "b"])),
    "redial questions a list": ("q.jsonl", _redial(initiatorQuestions=[1])),
    "no dialogue at all": ("empty.json", b"[]"),
    "dialoguekit conversation of strings": ("s.json", _dialoguekit(_set("conversation", ["hi"]))),
    "dialoguekit slot values of objects": (
        "sv.json",
        _dialoguekit(
            _first_utterance("dialogue_acts", [{"intent": "IQU", "slot_values": [{"a": 1}]}])
        ),
    ),
    "dialoguekit metadata a list": ("md.json", _dialoguekit(_set("metadata", [1, 2]))),
    "utterances not a list": ("u.jsonl", b'{"utterances": 5}\n'),
    "binary": ("bin.jsonl", bytes(range(256)) * 10),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_file_is_one_line_and_exit_2(name: str, tmp_path: Path) -> None:
    file_name, body = HOSTILE[name]
    path = tmp_path / file_name
    path.write_bytes(body)
    for app, args in (
        (evaluator, ["dialogues", str(path)]),
        (taurec, ["dialogues", "import", str(path), "--out", str(tmp_path / "out.json")]),
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (name, args[0], result.output, result.exception)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0], (name, result.stderr)
        assert "Traceback" not in result.output
    assert not (tmp_path / "out.json").exists()


def test_latin_1_is_refused_naming_the_line_and_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b"\n" + _redial().decode().encode("latin-1"))
    result = runner.invoke(evaluator, ["dialogues", str(path)])
    assert "line 2: byte 0xe9 is not UTF-8" in result.stderr


def test_merging_a_speakers_rows_is_linear_in_them(tmp_path: Path) -> None:
    """400,000 rows of one speaker (40,000 took 117 s when each merge copied what came
    before: hours here); the hang guard only catches the quadratic merge."""
    n = 400_000
    tsv = tmp_path / "long.tsv"
    rows = "".join(f"d1\t{i}\tSEEKER\tword{i}\t\t\n" for i in range(n))
    tsv.write_text(INSPIRED_HEAD + rows + "d1\tx\tRECOMMENDER\tOk?\t\t\n")
    (dialogue,) = finishes(lambda: read_inspired(tsv), "reading 400,000 INSPIRED rows")  # type: ignore[misc]
    assert dialogue.utterances[0].text.split()[-1] == f"word{n - 1}"
    messages = [{"senderWorkerId": 0, "text": f"w{i}"} for i in range(n)]
    jsonl = tmp_path / "long.jsonl"
    jsonl.write_bytes(_redial(messages=messages))
    (conversation,) = finishes(lambda: read_redial(jsonl), "reading 400,000 ReDial messages")  # type: ignore[misc]
    assert len(conversation.utterances) == 1 and conversation.utterances[0].text.endswith(
        f"w{n - 1}"
    )
