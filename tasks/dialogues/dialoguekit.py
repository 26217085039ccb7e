"""DialogueKit's annotated-dialogue JSON, read and written.

The file is a JSON list of dialogues, as DialogueKit's `json_to_dialogues` reads them and
UserSimCRS ships its annotated IARD dialogues:

    [{"conversation_id": "474", "agent": {"id": "..."}, "user": {"id": "..."},
      "metadata": {...},
      "conversation": [{"participant": "USER", "utterance": "Hi ...",
                        "dialogue_acts": [{"intent": "IQU", "slot_values": []},
                                          {"intent": "REC-S",
                                           "slot_values": [["TITLE", "It", null, null]]}]}]}]

Reading maps the IARD labels to taurec's intents (iard.py; labels already in taurec's
vocabulary stay as they are) and the values of the TITLE and ITEM slots to the items an
act is about; any other slot value becomes an act of its own with that slot and value.
Writing does the reverse, with IARD labels (or taurec's, `labels="taurec"`), item ids
under ITEM, and each act's slot and value. A user's reaction to a commit of an item it
was already offered carries `reaction_to` (DialogueKit keeps unknown utterance keys as
its metadata), so the metrics read back are the ones the log gave.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import ValidationError

from taurec.catalog.errors import DataError, from_validation_error
from taurec.tasks.dialogues.format import AnnotatedDialogue, AnnotatedUtterance, DialogueOutcome
from taurec.tasks.dialogues.iard import ITEM_SLOTS, to_iard
from taurec.tasks.dialogues.labels import BY_NAME, LabelSet, label_set_of
from taurec.tasks.trajectory.dialogue_acts import DialogueAct

Labels = Literal["iard", "taurec"]
_PARTICIPANTS = {"USER": "user", "AGENT": "agent"}


def _acts(raw: Any, participant: str, where: str, labels: LabelSet) -> list[DialogueAct]:
    if not isinstance(raw, list):
        raise DataError(f"{where}: dialogue_acts is not a list")
    out: list[DialogueAct] = []
    for act in raw:
        if not isinstance(act, dict) or not isinstance(act.get("intent"), str):
            raise DataError(f'{where}: a dialogue act without an "intent" string')
        intent = labels.intent(act["intent"], participant)
        if intent is None:
            raise DataError(
                f"{where}: unknown {participant} intent {act['intent']!r}; expected the labels "
                f"of one of {', '.join(BY_NAME)} (e.g. ACC, REJ, REC-S; accept_recommendation; "
                "NOTE.LIKE), taurec's intents, or an interaction model given with --schema"
            )
        items: list[str] = []
        stated: list[tuple[str, str]] = []
        for sv in act.get("slot_values") or []:
            if not isinstance(sv, list | tuple) or len(sv) < 2 or not isinstance(sv[0], str):
                raise DataError(f"{where}: a slot value is not [slot, value, start, end]")
            slot, value = sv[0], "" if sv[1] is None else str(sv[1])
            if slot.upper() in ITEM_SLOTS:
                items.append(value)
            else:
                stated.append((slot.lower(), value))
        if not stated:
            out.append(DialogueAct(intent=intent, items=tuple(items)))
        out += [DialogueAct(intent=intent, slot=s, value=v, items=tuple(items)) for s, v in stated]
    return out


def _labels(doc: list[Any]) -> list[tuple[str, str]]:
    """Every (participant, intent label) of a DialogueKit document, in order."""
    found: list[tuple[str, str]] = []
    for dialogue in doc:
        for u in (dialogue.get("conversation") or []) if isinstance(dialogue, dict) else []:
            who = (
                _PARTICIPANTS.get(str(u.get("participant")).upper())
                if isinstance(u, dict)
                else None
            )
            for act in (u.get("dialogue_acts") or []) if who else []:
                if who and isinstance(act, dict) and isinstance(act.get("intent"), str):
                    found.append((who, act["intent"]))
    return found


def outcome_of(metadata: dict[str, Any]) -> DialogueOutcome | None:
    """The outcome a dialogue's metadata records: UserSimCRS's `accepted_recommendations`
    (IARD) or `recommendation_outcome` (INSPIRED: accept_* or reject)."""
    taken = metadata.get("accepted_recommendations")
    if isinstance(taken, list):
        items = tuple(str(t).strip() for t in taken if str(t).strip())
        return DialogueOutcome(accepted=bool(items), items=items, source="accepted_recommendations")
    case = metadata.get("recommendation_outcome")
    if isinstance(case, str) and case.strip():
        movie = metadata.get("recommended_movie")
        accepted = case.strip().lower().startswith("accept")
        items = (str(movie),) if accepted and isinstance(movie, str) and movie else ()
        return DialogueOutcome(accepted=accepted, items=items, source="recommendation_outcome")
    return None


def dialogues_from_dialoguekit(
    doc: Any, *, source: Path | str, labels: LabelSet | None = None
) -> list[AnnotatedDialogue]:
    """The dialogues of a parsed DialogueKit JSON document, their labels read with `labels`
    (None: the first set that knows them all, labels.py); DataError naming the dialogue
    and the utterance that is not as DialogueKit writes it."""
    if not isinstance(doc, list):
        raise DataError("expected a JSON list of dialogues (DialogueKit's format)", source=source)
    labels = labels or label_set_of(_labels(doc))
    out = []
    for n, dialogue in enumerate(doc, 1):
        where = f"dialogue {n}"
        if not isinstance(dialogue, dict) or not isinstance(dialogue.get("conversation"), list):
            raise DataError(
                f'{where}: expected an object with a "conversation" list', source=source
            )
        ident = dialogue.get("conversation_id")
        utterances = []
        for k, u in enumerate(dialogue["conversation"], 1):
            at = (
                f"{where} ({ident}), utterance {k}"
                if ident is not None
                else f"{where}, utterance {k}"
            )
            participant = (
                _PARTICIPANTS.get(str(u.get("participant")).upper())
                if isinstance(u, dict)
                else None
            )
            if participant is None:
                raise DataError(f'{at}: participant must be "USER" or "AGENT"', source=source)
            try:
                acts = _acts(u.get("dialogue_acts") or [], participant, at, labels)
            except DataError as exc:
                raise DataError(str(exc), source=source) from None
            text = u.get("utterance")
            reaction = u.get("reaction_to")
            utterances.append(
                AnnotatedUtterance(
                    participant=participant,
                    intents=tuple(a.intent for a in acts),
                    text=text if isinstance(text, str) else None,
                    acts=tuple(acts),
                    reaction_to=reaction if isinstance(reaction, str) else None,
                )
            )
        if not utterances:
            continue
        metadata = dict(dialogue.get("metadata") or {})
        for side in ("agent", "user"):
            who = dialogue.get(side)
            if isinstance(who, dict) and who.get("id") is not None:
                metadata.setdefault(f"{side}_id", str(who["id"]))
        try:
            out.append(
                AnnotatedDialogue(
                    utterances=tuple(utterances),
                    id=None if ident is None else str(ident),
                    metadata=metadata,
                    outcome=outcome_of(metadata),
                )
            )
        except ValidationError as exc:
            raise from_validation_error(exc, source=source, record=where) from None
    return out


def read_dialoguekit(path: Path, labels: LabelSet | None = None) -> list[AnnotatedDialogue]:
    """The dialogues of a DialogueKit JSON file (DataError naming the file otherwise)."""
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise DataError(f"is not valid JSON ({exc})", source=path) from None
    return dialogues_from_dialoguekit(doc, source=path, labels=labels)


def _slot_values(act: DialogueAct) -> list[list[Any]]:
    values: list[list[Any]] = []
    if act.slot:
        values.append([act.slot.upper(), act.value, None, None])
    values += [["ITEM", item, None, None] for item in act.items]
    return values


def dialoguekit_record(dialogue: AnnotatedDialogue, labels: Labels = "iard") -> dict[str, Any]:
    """One dialogue as DialogueKit writes it."""

    def label(intent: str, participant: str) -> str:
        return to_iard(intent, participant) if labels == "iard" else intent

    conversation = []
    for u in dialogue.utterances:
        acts = u.acts or tuple(DialogueAct(intent=i) for i in u.intents)
        record: dict[str, Any] = {
            "participant": u.participant.upper(),
            "utterance": u.text or "",
            "dialogue_acts": [
                {"intent": label(a.intent, u.participant), "slot_values": _slot_values(a)}
                for a in acts
            ],
        }
        if u.reaction_to is not None:  # DialogueKit keeps it as the utterance's metadata
            record["reaction_to"] = u.reaction_to
        conversation.append(record)
    metadata = dict(dialogue.metadata)
    return {
        "conversation_id": dialogue.id,
        "agent": {"id": str(metadata.get("agent_id", "Agent"))},
        "user": {"id": str(metadata.get("user_id", "User"))},
        "metadata": metadata,
        "conversation": conversation,
    }


def write_dialoguekit(
    dialogues: Iterable[AnnotatedDialogue], path: Path, labels: Labels = "iard"
) -> int:
    """Write the dialogues as one DialogueKit JSON file (whole or not at all); returns how
    many were written."""
    records = [dialoguekit_record(d, labels) for d in dialogues]
    tmp = path.with_name(path.name + ".partial")
    tmp.write_bytes(orjson.dumps(records, option=orjson.OPT_INDENT_2))
    tmp.replace(path)
    return len(records)
