"""DialogueKit's annotated-dialogue JSON, read and written: IARD labels to taurec's acts
and back, titles as the items acts are about, one clear line for a file not as written."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from taurec.catalog.errors import DataError
from taurec.tasks.dialogues.dialoguekit import read_dialoguekit, write_dialoguekit
from taurec.tasks.dialogues.format import AnnotatedDialogue, AnnotatedUtterance
from taurec.tasks.dialogues.reading import read_annotated_dialogues
from taurec.tasks.trajectory.dialogue_acts import DialogueAct

#: the shape of UserSimCRS's annotated IARD file (made up here, not copied)
IARD = [
    {
        "conversation_id": "7",
        "agent": {"id": "human agent"},
        "user": {"id": "human user"},
        "metadata": {},
        "conversation": [
            {
                "participant": "USER",
                "utterance": "Any good sci-fi?",
                "dialogue_acts": [
                    {"intent": "IQU", "slot_values": []},
                    {"intent": "PRO", "slot_values": [["GENRE", "sci-fi", None, None]]},
                ],
            },
            {
                "participant": "AGENT",
                "utterance": "Try Moonfall Drift or Copper Sky.",
                "dialogue_acts": [
                    {
                        "intent": "REC-S",
                        "slot_values": [
                            ["TITLE", "Moonfall Drift", None, None],
                            ["TITLE", "Copper Sky", None, None],
                        ],
                    }
                ],
            },
            {
                "participant": "USER",
                "utterance": "Seen Copper Sky, but Moonfall Drift it is.",
                "dialogue_acts": [
                    {"intent": "SEE", "slot_values": [["TITLE", "Copper Sky", None, None]]},
                    {"intent": "ACC", "slot_values": [["TITLE", "Moonfall Drift", None, None]]},
                ],
            },
        ],
    }
]


def _write(tmp_path: Path, doc: object) -> Path:
    path = tmp_path / "dialogues.json"
    path.write_bytes(orjson.dumps(doc))
    return path


def test_iard_labels_become_taurec_intents_and_titles_the_items_acts_are_about(tmp_path):
    (dialogue,) = read_dialoguekit(_write(tmp_path, IARD))
    user, agent, verdict = dialogue.utterances
    assert dialogue.id == "7" and dialogue.metadata["agent_id"] == "human agent"
    assert user.intents == ("start", "disclose")
    assert (user.acts[1].slot, user.acts[1].value) == ("genre", "sci-fi")
    assert agent.acts == (DialogueAct(intent="recommend", items=("Moonfall Drift", "Copper Sky")),)
    assert [(a.intent, a.items) for a in verdict.acts] == [
        ("seen", ("Copper Sky",)),
        ("accept", ("Moonfall Drift",)),
    ]


def test_written_dialogues_read_back_the_same(tmp_path):
    dialogue = AnnotatedDialogue(
        id="e1",
        metadata={"agent_id": "scripted", "user_id": "rule"},
        utterances=(
            AnnotatedUtterance(
                participant="agent",
                intents=("recommend",),
                text="How about X?",
                acts=(DialogueAct(intent="recommend", items=("syn_1",)),),
            ),
            AnnotatedUtterance(
                participant="user",
                intents=("accept",),
                text="Yes!",
                acts=(DialogueAct(intent="accept", items=("syn_1",)),),
                reaction_to="syn_1",
            ),
            AnnotatedUtterance(
                participant="user",
                intents=("disclose",),
                text="I like comedies.",
                acts=(DialogueAct(intent="disclose", slot="genres", value="contains Comedy"),),
            ),
        ),
    )
    for labels in ("iard", "taurec"):
        path = tmp_path / f"{labels}.json"
        assert write_dialoguekit([dialogue], path, labels) == 1  # type: ignore[arg-type]
        assert read_dialoguekit(path) == [dialogue]
    written = orjson.loads((tmp_path / "iard.json").read_bytes())
    assert [a["intent"] for u in written[0]["conversation"] for a in u["dialogue_acts"]] == [
        "REC-S",
        "ACC",
        "PRO",
    ]


def test_an_unknown_label_is_one_line_naming_the_dialogue_and_utterance(tmp_path):
    doc = [{"conversation_id": "9", "conversation": [
        {"participant": "USER", "utterance": "hm", "dialogue_acts": [{"intent": "XYZ"}]}
    ]}]  # fmt: skip
    with pytest.raises(DataError) as caught:
        read_dialoguekit(_write(tmp_path, doc))
    message = str(caught.value)
    assert "\n" not in message
    assert "dialogue 1 (9), utterance 1" in message and "'XYZ'" in message


def test_a_file_that_is_not_a_list_of_dialogues_is_refused(tmp_path):
    with pytest.raises(DataError, match="JSON list of dialogues"):
        read_dialoguekit(_write(tmp_path, {"conversation": []}))


def test_a_dialoguekit_file_serves_as_annotated_dialogues(tmp_path):
    (dialogue,) = read_annotated_dialogues(_write(tmp_path, IARD))
    assert [u.participant for u in dialogue.utterances] == ["user", "agent", "user"]


def test_a_folder_passes_over_json_files_of_another_shape(tmp_path):
    _write(tmp_path, IARD)
    (tmp_path / "suite.json").write_bytes(orjson.dumps({"id": "x"}))
    assert len(read_annotated_dialogues(tmp_path)) == 1
