"""Reading annotated dialogues from disk: for the agenda users' transition matrices and
for scoring dialogues from outside.

A path is a file or a folder (searched recursively for `*.jsonl` and `*.json`). Each
`.jsonl` file is either a taurec episode log (its records' `agent_message` and
`user_message` carry dialogue acts: the intents of each message are one utterance) or a
file of annotated dialogues, one per line (format.py):

    {"utterances": [{"participant": "agent", "intents": ["elicit"]},
                    {"participant": "user", "intents": ["disclose"]}]}

A `.json` file is DialogueKit's annotated-dialogue JSON (dialoguekit.py), such as
UserSimCRS's annotated IARD, INSPIRED and MovieBot files as they are (their labels read
by labels.py); in a folder, `.json` files of another shape
(plans, suites) are passed over. A `.jsonl` file of ReDial conversations (redial.py) and
a `.tsv` file of INSPIRED dialogues (inspired.py) are read in their published layouts. A file is taken as annotated dialogues when its first
record has `utterances`. Messages without acts (older logs) still count as utterances
with no intents, so no transition is made up across them. A path with no annotated
dialogue at all is an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from taurec.catalog.errors import DataError, from_validation_error
from taurec.tasks.dialogues.dialoguekit import dialogues_from_dialoguekit
from taurec.tasks.dialogues.files import json_value, read_text, record_shape
from taurec.tasks.dialogues.format import AnnotatedDialogue, AnnotatedUtterance
from taurec.tasks.dialogues.inspired import read_inspired
from taurec.tasks.dialogues.labels import LabelSet
from taurec.tasks.dialogues.redial import is_redial, read_redial
from taurec.tasks.trajectory.dialogue_acts import AGENT_INTENTS, USER_INTENTS

DIALOGUEKIT = "DialogueKit's annotated-dialogue JSON (a list of dialogues with conversation lists)"
_SPEAKER = {"agent_message": ("agent", AGENT_INTENTS), "user_message": ("user", USER_INTENTS)}


def _records(path: Path) -> list[dict[str, Any]]:
    """The file's JSON records; a last line cut short (a log whose writer was stopped)
    is left out, any other line that is not JSON is an error."""
    out = []
    lines = read_text(path, "JSON lines").splitlines()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json_value(line, f"line {n}", path)
        except DataError:
            if n == len(lines):
                break
            raise
        if not isinstance(record, dict):
            raise DataError(f"line {n} is not a JSON object", source=path)
        out.append(record)
    return out


def _from_log(records: list[dict[str, Any]]) -> AnnotatedDialogue | None:
    utterances = []
    annotated = False
    for r in records:
        speaker = _SPEAKER.get(str(r.get("type")))
        if speaker is None or not r.get("delivered", True):
            continue
        who, known = speaker
        acts = r.get("acts") or []
        annotated |= bool(acts)
        intents = tuple(
            a["intent"] for a in acts if isinstance(a, dict) and a.get("intent") in known
        )
        utterances.append(AnnotatedUtterance(participant=who, intents=intents))
    return AnnotatedDialogue(utterances=tuple(utterances)) if annotated else None


def _from_lines(path: Path, records: list[dict[str, Any]]) -> list[AnnotatedDialogue]:
    out = []
    for n, record in enumerate(records, 1):
        try:
            out.append(AnnotatedDialogue.model_validate(record))
        except ValidationError as exc:
            raise from_validation_error(exc, source=path, record=f"dialogue {n}") from None
        except RecursionError:  # nesting past what the validator follows
            raise DataError(f"dialogue {n} is nested too deeply to read", source=path) from None
    return out


def _dialoguekit_file(
    path: Path, *, named: bool, labels: LabelSet | None = None
) -> list[AnnotatedDialogue]:
    """The DialogueKit dialogues of a .json file. One found in a folder that is not in
    DialogueKit's shape gives none; one named itself is an error."""
    try:
        doc = json_value(read_text(path, DIALOGUEKIT), None, path)
    except DataError:
        if named:
            raise
        return []
    shaped = isinstance(doc, list) and (
        not doc or (isinstance(doc[0], dict) and "conversation" in doc[0])
    )
    if not shaped and not named:
        return []
    with record_shape("a dialogue", DIALOGUEKIT, path):
        return dialogues_from_dialoguekit(doc, source=path, labels=labels)


def read_annotated_dialogues(
    path: str | Path, *, logs: bool = True, labels: LabelSet | None = None
) -> list[AnnotatedDialogue]:
    """Every annotated dialogue under `path`. Raises DataError when there is none.
    `logs=False` passes taurec episode logs over (a log named itself is an error): their
    dialogue, with its commits, is the evaluator's to read. `labels`: the label set of its
    DialogueKit files (None: each file's own, found by its labels; labels.py)."""
    root = Path(path)
    if not root.exists():
        raise DataError("no such file or folder", source=root)
    named = root.is_file()
    files = (
        [root]
        if named
        else sorted([*root.rglob("*.jsonl"), *root.rglob("*.json"), *root.rglob("*.tsv")])
    )
    dialogues: list[AnnotatedDialogue] = []
    for file in files:
        if file.suffix == ".json":
            dialogues += _dialoguekit_file(file, named=named, labels=labels)
            continue
        if file.suffix == ".tsv":
            dialogues += read_inspired(file)
            continue
        records = _records(file)
        if records and "utterances" in records[0]:
            dialogues += _from_lines(file, records)
        elif records and is_redial(records[0]):
            dialogues += read_redial(file)
        elif not logs:
            if named and records and records[0].get("type") == "header":
                raise DataError(
                    "is a taurec episode log; score logs with `evaluator score`", source=file
                )
        else:
            with record_shape("a record", "taurec episode log records", file):
                found = _from_log(records)
            if found is not None:
                dialogues.append(found)
    if not dialogues:
        raise DataError(
            "no annotated dialogues (expected taurec episode logs whose messages carry "
            'dialogue acts, JSONL lines of {"utterances": [{"participant", "intents"}]}, '
            "DialogueKit's annotated-dialogue JSON, ReDial's JSONL or INSPIRED's TSV)",
            source=root,
        )
    return dialogues
