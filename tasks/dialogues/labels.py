"""The dialogue-act label sets of dialogue files from outside, each read into taurec's
intents (the log's vocabulary, taurec.tasks.trajectory.dialogue_acts).

- `iard`: UserSimCRS's annotated IARD dialogues and ReDial's intent schema (iard.py);
- `inspired`: INSPIRED's sociable-strategy labels as UserSimCRS annotates INSPIRED
  (`greeting`, `disclose_opinion`, `accept_recommendation`, `recommend`, ...);
- `moviebot`: IAI MovieBot's labels (`DISCLOSE`, `NOTE.LIKE`, `REVEAL`, ...);
- any UserSimCRS interaction-model YAML, read as it is (`from_interaction_model`).

An interaction model says what its labels mean by their roles. Its `required_intents`
name the user's start, stop, item consumed, like, dislike, neutral, disclose, inquire,
don't know, yes and no (taurec's start, stop, seen, accept, reject, neutral, disclose,
inquire, dont_know, yes, no); a user intent whose `preference_contingent` is POSITIVE,
NEGATIVE, CONSUMED, NEUTRAL or NOT_CONSUMED is an accept, reject, seen, neutral or no; the
agent's `agent_set_retrieval` labels recommend, `agent_elicit_intents` elicit and
`agent_inquire_intents` inquire. Any other label, listed or not, is `other`. The INSPIRED
and MovieBot sets here are those rules applied to their label lists.

A file's labels are read with the first set that knows every one of them (`label_set_of`),
or with a set given by name or by an interaction-model file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from taurec.catalog.errors import DataError
from taurec.tasks.dialogues.iard import AGENT_FROM_IARD, AGENT_TO_IARD, USER_FROM_IARD, USER_TO_IARD

#: An interaction model's role -> taurec's user intent.
ROLES: Final = {
    "INTENT_START": "start",
    "INTENT_STOP": "stop",
    "INTENT_ITEM_CONSUMED": "seen",
    "INTENT_LIKE": "accept",
    "INTENT_DISLIKE": "reject",
    "INTENT_NEUTRAL": "neutral",
    "INTENT_DISCLOSE": "disclose",
    "INTENT_INQUIRE": "inquire",
    "INTENT_DONT_KNOW": "dont_know",
    "INTENT_YES": "yes",
    "INTENT_NO": "no",
}
#: A user intent's `preference_contingent` -> taurec's user intent.
CONTINGENT: Final = {
    "POSITIVE": "accept",
    "NEGATIVE": "reject",
    "CONSUMED": "seen",
    "NEUTRAL": "neutral",
    "NOT_CONSUMED": "no",
}


@dataclass(frozen=True)
class LabelSet:
    """One vocabulary of dialogue-act labels, by participant, with each label's intent."""

    name: str
    user: Mapping[str, str]
    agent: Mapping[str, str]
    #: the intent of a label the set does not list (None: such a label is unknown)
    fallback: str | None = None

    def intent(self, label: str, participant: str) -> str | None:
        """The taurec intent of `label` said by `participant`; a taurec intent is itself;
        the fallback (None by default) for a label this set does not list."""
        own = USER_TO_IARD if participant == "user" else AGENT_TO_IARD
        if label in own:
            return label
        table = self.user if participant == "user" else self.agent
        return table.get(label, table.get(label.upper(), self.fallback))

    def unknown(self, labels: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """The (participant, label) pairs this set does not know."""
        return [(p, label) for p, label in labels if self.intent(label, p) is None]


def _set(words: str, intent: str) -> dict[str, str]:
    return dict.fromkeys(words.split(), intent)


IARD: Final = LabelSet(
    "iard",
    USER_FROM_IARD,
    {**AGENT_FROM_IARD, "CLQ": "elicit"},  # CLQ: a clarifying question
)
INSPIRED: Final = LabelSet(
    "inspired",
    {
        "greeting": "start",
        "goodbye": "stop",
        "seen_item": "seen",
        "accept_recommendation": "accept",
        "accept_uninterested": "accept",
        "reject_recommendation": "reject",
        "neutral_response": "neutral",
        **_set("disclose_opinion disclose_experience rephrase_preference similarity", "disclose"),
        **_set("inquire_item_info inquire_recommendation opinion_inquiry", "inquire"),
        "DONT-KNOW": "dont_know",
        "YES": "yes",
        "NO": "no",
        **_set("acknowledgment chit_chat clarification offer_help no_strategy", "other"),
    },
    {
        **_set("recommend encouragement personal_experience self_modeling", "recommend"),
        **_set("opinion_inquiry experience_inquiry", "elicit"),
        **_set(
            "acknowledgment chit_chat credibility goodbye greeting offer_help personal_opinion "
            "preference_confirmation rephrase_preference similarity transparency no_strategy "
            "promise other",
            "other",
        ),
    },
)
MOVIEBOT: Final = LabelSet(
    "moviebot",
    {
        "DISCLOSE.NON-DISCLOSE": "start",
        "COMPLETE": "stop",
        "NOTE.YES": "seen",
        "NOTE.LIKE": "accept",
        "NOTE.ACCEPT": "accept",
        "NOTE.DISLIKE": "reject",
        "NOTE.NEUTRAL": "neutral",
        "NOTE.NO": "no",
        **_set("DISCLOSE REVEAL.EXPAND REVEAL.REFINE REVEAL.REVISE", "disclose"),
        **_set("INQUIRE INQUIRE.SIMILAR INQUIRE.ITEMINFO INQUIRE.MORE", "inquire"),
        "DONT-KNOW": "dont_know",
        "YES": "yes",
        "NO": "no",
        "NOTE": "other",
    },
    {
        **_set("REVEAL REVEAL.SIMILAR REVEAL.NONE", "recommend"),
        **_set("INQUIRE INQUIRE.ELICIT", "elicit"),
        **_set("INQUIRE.MORE INQUIRE.NEXT", "inquire"),
        **_set("DISCLOSE.MORE DISCLOSE.NON-DISCLOSE END FAILED", "other"),
    },
)
LABEL_SETS: Final = (IARD, INSPIRED, MOVIEBOT)
BY_NAME: Final = {s.name: s for s in LABEL_SETS}


def label_set_of(labels: Iterable[tuple[str, str]]) -> LabelSet:
    """The first label set that knows every (participant, label) of a file; when none does,
    the one that knows most of them (the reader then names the label it does not know)."""
    found = list(dict.fromkeys(labels))
    return min(LABEL_SETS, key=lambda candidate: len(candidate.unknown(found)))


def from_interaction_model(doc: Any, *, source: Path | str) -> LabelSet:
    """The label set a UserSimCRS interaction model defines (see the module docstring);
    DataError naming what is missing."""
    if not isinstance(doc, dict) or not isinstance(doc.get("required_intents"), dict):
        raise DataError(
            "expected a UserSimCRS interaction model (required_intents, user_intents, "
            "agent_elicit_intents, agent_set_retrieval, agent_inquire_intents)",
            source=source,
        )
    required = doc["required_intents"]
    missing = [role for role in ROLES if role not in required]
    if missing:
        raise DataError(f"required_intents lacks {', '.join(missing)}", source=source)
    user: dict[str, str] = {}
    for name, spec in (doc.get("user_intents") or {}).items():
        contingent = spec.get("preference_contingent") if isinstance(spec, dict) else None
        user[str(name)] = CONTINGENT.get(str(contingent), "other")
    user.update({str(required[role]): intent for role, intent in ROLES.items()})
    agent: dict[str, str] = {}
    for key, intent in (
        ("agent_inquire_intents", "inquire"),
        ("agent_elicit_intents", "elicit"),
        ("agent_set_retrieval", "recommend"),
    ):  # later lists win: a label both elicits and inquires is an elicit
        agent.update(dict.fromkeys(map(str, doc.get(key) or ()), intent))
    for spec in (doc.get("user_intents") or {}).values():
        if isinstance(spec, dict):
            for label in spec.get("expected_agent_intents") or ():
                agent.setdefault(str(label), "other")
    name = str(doc.get("name") or Path(str(source)).stem)
    return LabelSet(name, user, agent, fallback="other")


def read_interaction_model(path: Path) -> LabelSet:
    """The label set of an interaction-model YAML file (DataError naming the file)."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError("no such file", source=path) from None
    except yaml.YAMLError as exc:
        raise DataError(f"is not valid YAML ({str(exc).splitlines()[0]})", source=path) from None
    return from_interaction_model(doc, source=path)
