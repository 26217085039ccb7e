"""The five aspects an LLM judge grades a recommendation dialogue on, each with a 1-5
rubric of five anchored sentences (5 = best). The rubric text is part of every cached
judgement's key (RUBRIC_VERSION), so editing a sentence invalidates the old answers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Aspect:
    name: str  # the key in judge files and reports
    title: str  # what the aspect is called in tables
    question: str  # what the judge is asked to assess
    anchors: tuple[str, str, str, str, str]  # the sentences for scores 5, 4, 3, 2, 1

    def rubric(self) -> str:
        lines = [self.question]
        lines += [f"{5 - i}: {sentence}" for i, sentence in enumerate(self.anchors)]
        return "\n".join(lines)


ASPECTS: Final[dict[str, Aspect]] = {
    a.name: a
    for a in (
        Aspect(
            "rec_relevance",
            "recommendation relevance",
            "How well do the items the ASSISTANT recommends fit what the USER asked for?",
            (
                "Every title offered fits the user's stated wishes and situation closely.",
                "Most titles offered fit the user's wishes; small mismatches remain.",
                "The titles offered fit some of the user's wishes and miss others.",
                "The titles offered mostly ignore what the user said they wanted.",
                "No title offered fits the user's wishes, or nothing was offered at all.",
            ),
        ),
        Aspect(
            "com_style",
            "communication style",
            "How clear, concise and suited to the USER is the way the ASSISTANT communicates?",
            (
                "Every reply is clear, to the point and pitched right for this user.",
                "Replies are mostly clear and concise, with an occasional wordy or vague one.",
                "Replies are understandable but often longer, vaguer or stiffer than needed.",
                "Replies are frequently confusing, rambling or off in tone for the user.",
                "Replies are unclear or unsuitable throughout the conversation.",
            ),
        ),
        Aspect(
            "fluency",
            "fluency",
            "How natural and well-formed is the ASSISTANT's language?",
            (
                "Every reply reads as natural, grammatical, human-like language.",
                "Replies are natural and grammatical with a few awkward phrasings.",
                "Replies are readable but noticeably mechanical or awkward in places.",
                "Replies often contain broken grammar, repetition or garbled wording.",
                "Replies are hard to read throughout: ungrammatical, repetitive or incoherent.",
            ),
        ),
        Aspect(
            "conv_flow",
            "conversational flow",
            "How coherent and consistent is the conversation, turn by turn?",
            (
                "Each reply follows on from the user's last turn and the dialogue stays coherent.",
                "The dialogue is mostly coherent; a reply occasionally ignores what came before.",
                "The dialogue holds together in parts but often loses track of earlier turns.",
                "Replies frequently ignore the user's last turn or contradict earlier ones.",
                "The replies never connect to what the user says; there is no coherent thread.",
            ),
        ),
        Aspect(
            "overall_sat",
            "overall satisfaction",
            "How satisfied would the USER be with this conversation as a whole?",
            (
                "The user got what they came for and would be very pleased.",
                "The user was mostly helped and would be fairly pleased.",
                "The user was helped only in part and would feel neutral.",
                "The user was mostly not helped and would be disappointed.",
                "The user was not helped at all and would be frustrated.",
            ),
        ),
    )
}

#: Identifies the rubric text: a cached answer is reused only under the same version.
RUBRIC_VERSION: Final = hashlib.sha256(
    "\n\n".join(f"{a.name}\n{a.rubric()}" for a in ASPECTS.values()).encode()
).hexdigest()[:12]


class UnknownAspect(ValueError):
    """An aspect name that is not one of ASPECTS."""


def aspect(name: str) -> Aspect:
    """The aspect called `name`; UnknownAspect (naming the valid ones) otherwise."""
    found = ASPECTS.get(name)
    if found is None:
        raise UnknownAspect(f"unknown judge aspect {name!r}; expected one of {', '.join(ASPECTS)}")
    return found
