"""ReDial in its published layout (`train_data.jsonl`, `test_data.jsonl`: one conversation
per line) as annotated dialogues.

A conversation holds `messages` (`text`, `senderWorkerId`), `movieMentions` (id ->
"Title (Year)") and the seeker's answers about each movie mentioned
(`initiatorQuestions`: `suggested`, `seen`, `liked`, with 2 for "did not say"). As
UserSimCRS converts it: the initiator (the seeker) is the user, the respondent the agent,
each `@id` mention becomes "Title (Year)", and consecutive messages of one speaker are
merged into one utterance.

ReDial carries no dialogue acts; they are read off its own labels: the seeker's first
utterance is a `start`; an agent utterance naming movies is a `recommend` of them, one
asking a question an `elicit`, any other `other`; a seeker utterance naming a movie the
agent suggested is an `accept` (liked 1), a `reject` (liked 0) or a `seen` (seen 1, liked
not said) of it, one naming another movie a `disclose` of it as a preference; the rest
is `other`. The items acts are about are the movies' "Title (Year)".

The dialogue's outcome is read from the same labels, whatever the text repeats: the
seeker took a recommendation when it said it liked a movie the recommender suggested
(`suggested` 1 and `liked` 1); a conversation without the seeker's answers has none.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from taurec.catalog.errors import DataError
from taurec.tasks.dialogues.files import json_value, read_text, record_shape
from taurec.tasks.dialogues.format import AnnotatedDialogue, AnnotatedUtterance, DialogueOutcome
from taurec.tasks.trajectory.dialogue_acts import DialogueAct

_MENTION = re.compile(r"@(\d+)")
EXPECTED = (
    "a ReDial conversation: messages (objects with text and senderWorkerId), "
    "initiatorWorkerId, movieMentions (id -> title) and initiatorQuestions (id -> answers)"
)


def _verdict(answers: dict[str, Any]) -> str | None:
    liked, seen = answers.get("liked"), answers.get("seen")
    if liked == 1:
        return "accept"
    if liked == 0:
        return "reject"
    return "seen" if seen == 1 else None


def _acts(
    participant: str, text: str, mentioned: list[str], first: bool, answers: dict[str, Any]
) -> list[DialogueAct]:
    titles = [t for t in mentioned if t]
    if participant == "agent":
        if titles:
            return [DialogueAct(intent="recommend", items=tuple(titles))]
        return [DialogueAct(intent="elicit" if "?" in text else "other")]
    acts = [DialogueAct(intent="start")] if first else []
    for movie_id, title in zip(_MENTION.findall(text), mentioned, strict=False):
        said = answers.get(movie_id) or {}
        intent = _verdict(said) if said.get("suggested") == 1 else None
        acts.append(
            DialogueAct(intent=intent, items=(title,))
            if intent
            else DialogueAct(intent="disclose", slot="title", value=title, items=(title,))
        )
    return acts or [DialogueAct(intent="other")]


def _conversation(doc: dict[str, Any], source: Path, line: int) -> AnnotatedDialogue | None:
    messages = doc.get("messages")
    seeker = doc.get("initiatorWorkerId")
    if not isinstance(messages, list) or seeker is None:
        raise DataError(
            f"line {line}: expected a ReDial conversation (messages, initiatorWorkerId, ...)",
            source=source,
        )
    mentions = {str(k): str(v) for k, v in (doc.get("movieMentions") or {}).items() if v}
    answers = {
        str(k): v for k, v in (doc.get("initiatorQuestions") or {}).items() if isinstance(v, dict)
    }
    merged: list[tuple[str, list[str]]] = []  # a speaker's consecutive texts, joined once
    for m in messages:
        who = "user" if m.get("senderWorkerId") == seeker else "agent"
        text = str(m.get("text") or "")
        if merged and merged[-1][0] == who:
            merged[-1][1].append(text)
        else:
            merged.append((who, [text]))
    utterances = []
    for k, (who, texts) in enumerate(merged):
        text = " ".join(texts)
        mentioned = [mentions.get(i, "") for i in _MENTION.findall(text)]
        acts = _acts(who, text, mentioned, k == 0 and who == "user", answers)
        readable = _MENTION.sub(lambda m: mentions.get(m.group(1), m.group(0)), text)
        utterances.append(
            AnnotatedUtterance(
                participant=who,
                intents=tuple(a.intent for a in acts),
                text=readable,
                acts=tuple(acts),
            )
        )
    if not utterances:
        return None
    return AnnotatedDialogue(
        utterances=tuple(utterances),
        id=str(doc.get("conversationId", line)),
        metadata={"source": "redial", "agent_id": "redial recommender", "user_id": "redial seeker"},
        outcome=_outcome(answers, mentions),
    )


def _outcome(answers: dict[str, Any], mentions: dict[str, str]) -> DialogueOutcome | None:
    """Whether the seeker liked a movie the recommender suggested, by its own answers."""
    if not answers:
        return None
    liked = tuple(
        mentions.get(movie, movie)
        for movie, said in answers.items()
        if said.get("suggested") == 1 and said.get("liked") == 1
    )
    return DialogueOutcome(accepted=bool(liked), items=liked, source="ReDial initiatorQuestions")


def read_redial(path: Path) -> list[AnnotatedDialogue]:
    """The conversations of a ReDial JSONL file; DataError naming the line otherwise."""
    out = []
    for n, line in enumerate(read_text(path, EXPECTED).splitlines(), 1):
        if not line.strip():
            continue
        doc = json_value(line, f"line {n}", path)
        if not isinstance(doc, dict):
            raise DataError(f"line {n} is not a JSON object", source=path)
        with record_shape(f"line {n}", EXPECTED, path):
            found = _conversation(doc, path, n)
        if found is not None:
            out.append(found)
    return out


def is_redial(record: dict[str, Any]) -> bool:
    return "messages" in record and "movieMentions" in record
