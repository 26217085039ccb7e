"""IARD dialogue-act labels (UserSimCRS's annotated IARD dialogues, ReDial's intent schema)
and taurec's acts, both ways.

IARD labels the user's IQU (initial query), PRO/ANS/REF/CRI-* (stating or refining a
preference), INQ/ASK (asking), SEE, ACC, REJ, NRE, STO/END/BYE and OTH, and the agent's
REC-S/REC-E (recommending), REQ/CLA (eliciting), RESP/R-ANS (answering), EXP-* (explaining),
END and OTH. UserSimCRS's interaction models add DONT-KNOW, YES and NO. Mapped to
taurec's intents (the log's vocabulary), several IARD labels become one taurec intent;
back, each taurec intent becomes its main IARD label.
"""

from __future__ import annotations

from typing import Final

#: IARD user label -> taurec user intent
USER_FROM_IARD: Final = {
    "IQU": "start",
    "PRO": "disclose",
    "ANS": "disclose",
    "REF": "disclose",
    "CRI-F": "disclose",
    "CRI-A": "disclose",
    "CRI-C": "disclose",
    "CON": "other",
    "INQ": "inquire",
    "ASK": "inquire",
    "SEE": "seen",
    "ACC": "accept",
    "REJ": "reject",
    "NRE": "neutral",
    "STO": "stop",
    "END": "stop",
    "BYE": "stop",
    "DONT-KNOW": "dont_know",
    "YES": "yes",
    "NO": "no",
    "OTH": "other",
}
#: IARD agent label -> taurec agent intent
AGENT_FROM_IARD: Final = {
    "REC-S": "recommend",
    "REC-E": "recommend",
    "REQ": "elicit",
    "CLA": "elicit",
    "RESP": "answer",
    "R-ANS": "answer",
    "ANS": "answer",
    "INQ": "inquire",
    "EXP-I": "other",
    "EXP-P": "other",
    "EXP-S": "other",
    "END": "other",
    "OTH": "other",
}
#: taurec user intent -> its IARD label
USER_TO_IARD: Final = {
    "start": "IQU",
    "disclose": "PRO",
    "inquire": "INQ",
    "accept": "ACC",
    "reject": "REJ",
    "seen": "SEE",
    "dont_know": "DONT-KNOW",
    "neutral": "NRE",
    "yes": "YES",
    "no": "NO",
    "stop": "STO",
    "other": "OTH",
}
#: taurec agent intent -> its IARD label
AGENT_TO_IARD: Final = {
    "recommend": "REC-S",
    "elicit": "REQ",
    "inquire": "INQ",
    "answer": "RESP",
    "other": "OTH",
}
#: IARD slots whose values name items (a title, or a catalog id in taurec's exports)
ITEM_SLOTS: Final = frozenset({"TITLE", "ITEM"})


def from_iard(label: str, participant: str) -> str | None:
    """The taurec intent of an IARD label said by `participant` ("user" or "agent"); a
    label already in taurec's vocabulary is itself; None for a label neither knows."""
    table = USER_FROM_IARD if participant == "user" else AGENT_FROM_IARD
    taurec = USER_TO_IARD if participant == "user" else AGENT_TO_IARD
    if label in taurec:
        return label
    return table.get(label.upper())


def to_iard(intent: str, participant: str) -> str:
    """The IARD label of a taurec intent said by `participant`."""
    table = USER_TO_IARD if participant == "user" else AGENT_TO_IARD
    return table.get(intent, "OTH")
