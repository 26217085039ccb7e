"""Dialogue acts: what the user means to say, before it is worded.

The dialogue policy decides a list of acts for each turn; NLG words them. Keeping the
two apart lets tests assert on decisions (was a hidden constraint hinted, or stated?)
independently of the seeded wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from taurec.server.recommendation.simulator.nlu import Attribute
from taurec.tasks.recommendation.constraint import Constraint


class ActKind(StrEnum):
    INFORM = "inform"  # state constraints on an attribute
    NO_PREFERENCE = "no_preference"
    SOFT = "soft"  # voice a soft preference
    VAGUE = "vague"  # the attribute only has unstated constraints
    HISTORY = "history"  # about what the user has watched
    NOTHING_ELSE = "nothing_else"
    ACCEPT = "accept"
    REJECT = "reject"  # reasons for stated constraints and/or one hint
    SEEN = "seen"  # the pitched title is in the watch history
    NOT_SEEN = "not_seen"  # "have you seen X?" -> "no" (followed by a reaction)
    ONE_AT_A_TIME = "one_at_a_time"
    EMPTY = "empty"
    OFF_TOPIC = "off_topic"
    GREETING = "greeting"
    UNCLEAR = "unclear"  # a question the user did not understand
    ACK = "ack"
    ALREADY_ACCEPTED = "already_accepted"
    LEAVE = "leave"
    COMMIT_HAPPY = "commit_happy"
    COMMIT_SEEN = "commit_seen"
    COMMIT_WRONG = "commit_wrong"
    COMMIT_UNKNOWN = "commit_unknown"
    ABSTAIN_OK = "abstain_ok"
    ABSTAIN_SAD = "abstain_sad"


@dataclass(frozen=True)
class Act:
    """One dialogue act.

    `constraints` are the ones stated (INFORM) or given as reasons (REJECT,
    COMMIT_WRONG); `options` are wording alternatives the policy already chose between
    in meaning: hint variants for one constraint, or a soft preference's text.
    `new` marks an act that tells the agent something it had not been told.
    """

    kind: ActKind
    attribute: Attribute | None = None
    constraints: tuple[Constraint, ...] = ()
    options: tuple[str, ...] = ()
    item_id: str | None = None
    repeated: bool = False
    new: bool = False
