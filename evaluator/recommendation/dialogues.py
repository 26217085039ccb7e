"""Dialogues in and out: an episode log's dialogue as an annotated dialogue (what
`taurec dialogues export` writes as DialogueKit JSON), and the dialogue metrics of
annotated dialogues from anywhere (`evaluator dialogues`).

A log's dialogue is exactly the one its metrics are computed on (dialogue.py's
`dialogue_of`: the delivered messages and the commits placed as rounds), so DialogueKit
counts the same utterances and speaker changes taurec does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from taurec.evaluator.recommendation.dialogue import dialogue_of
from taurec.evaluator.recommendation.dialogue_metrics import (
    Act,
    Utterance,
    dialogue_metrics,
    mean_metrics,
)
from taurec.tasks.dialogues.format import AnnotatedDialogue, AnnotatedUtterance
from taurec.tasks.trajectory.dialogue_acts import DialogueAct
from taurec.tasks.trajectory.format import Header


def _acts(source: Any) -> tuple[DialogueAct, ...]:
    acts = source.get("acts") if isinstance(source, dict) else None
    return tuple(DialogueAct.model_validate(a) for a in acts or ())


def log_dialogue(header: Header, events: list[dict[str, Any]]) -> AnnotatedDialogue | None:
    """An episode's dialogue, with each utterance's text and acts; None when its
    messages carry no acts."""
    found = dialogue_of(events)
    if found is None or not found[0]:
        return None
    utterances = []
    for u in found[0]:
        source = u.source if isinstance(u.source, dict) else {}
        text = source.get("text")
        utterances.append(
            AnnotatedUtterance(
                participant=u.speaker,
                intents=u.intents,
                text=text if isinstance(text, str) else "",
                acts=_acts(source),
                reaction_to=u.reaction_to,
            )
        )
    return AnnotatedDialogue(
        utterances=tuple(utterances),
        id=header.episode_id,
        metadata={
            "agent_id": header.agent.label,
            "user_id": header.simulator.kind,
            "task_id": header.task_id,
            "trial": header.trial,
            "run_id": header.run_id,
            "kind": header.kind,
        },
    )


def utterances_of(dialogue: AnnotatedDialogue) -> list[Utterance]:
    """An annotated dialogue as the metrics read it (items: the items its acts name)."""
    out = []
    for u in dialogue.utterances:
        acts = tuple(Act(a.intent, tuple(a.items)) for a in u.acts)
        out.append(Utterance(u.participant, u.intents, acts, u.reaction_to))
    return out


@dataclass
class DialogueScores:
    """The dialogue metrics of some annotated dialogues: per dialogue, and their means.

    SR is read two ways where it can be: from the acts (`sr`: a round whose user accepted
    a title) and from the data set's own outcome labels (`sr_labels`: the share of the
    labelled dialogues whose user took a recommendation; None when none is labelled).
    `sr_source` says which the file allows: "acts", "labels", "both", or "none" when its
    dialogues carry no accept or reject act and no outcome label (SR is then 0 by
    construction, not by what happened)."""

    source: str
    per_dialogue: list[dict[str, Any]] = field(default_factory=list)

    @property
    def means(self) -> dict[str, float | None]:
        means = mean_metrics([d["metrics"] for d in self.per_dialogue])
        labelled = [d["outcome"]["accepted"] for d in self.per_dialogue if d.get("outcome")]
        means["sr_labels"] = sum(labelled) / len(labelled) if labelled else None
        return means

    @property
    def sr_source(self) -> str:
        verdicts = any(d["verdicts"] for d in self.per_dialogue)
        labelled = any(d.get("outcome") for d in self.per_dialogue)
        return {(True, True): "both", (True, False): "acts", (False, True): "labels"}.get(
            (verdicts, labelled), "none"
        )

    def record(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "dialogues": len(self.per_dialogue),
            "sr_source": self.sr_source,
            "labelled": sum(bool(d.get("outcome")) for d in self.per_dialogue),
            "means": self.means,
            "per_dialogue": self.per_dialogue,
        }


_VERDICT_INTENTS = frozenset({"accept", "reject"})


def score_dialogues(source: str, dialogues: Iterable[AnnotatedDialogue]) -> DialogueScores:
    """SR, SRRR (both readings), RDL, utterances and turn pairs of each dialogue, and the
    outcome its own labels record."""
    scores = DialogueScores(source)
    for n, d in enumerate(dialogues, 1):
        verdicts = any(
            u.participant == "user" and not _VERDICT_INTENTS.isdisjoint(u.intents)
            for u in d.utterances
        )
        scored: dict[str, Any] = {
            "id": d.id or str(n),
            "metrics": dialogue_metrics(utterances_of(d)),
            "verdicts": verdicts,
        }
        if d.outcome is not None:
            scored["outcome"] = d.outcome.model_dump(mode="json")
        scores.per_dialogue.append(scored)
    return scores
