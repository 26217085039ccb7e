"""The simulated-user interface the MCP server talks to.

A simulator is created per episode, speaks first (`opening`), answers each agent
message (`respond`), and has the last word after the committing call
(`react_to_commit`). The server enforces the task's turn budget; a simulator may also
end the conversation itself by returning `left=True`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from taurec.tasks.trajectory.dialogue_acts import DialogueAct


@dataclass(frozen=True)
class UserReply:
    text: str
    left: bool = False  # the user ended the conversation
    accepted: str | None = None  # item id the user accepted in this reply, if any
    acts: tuple[DialogueAct, ...] = ()  # what the reply meant (IARD), when known
    acts_by: str | None = None  # who gave `acts` (see taurec.tasks.trajectory.dialogue_acts)


def opening_acts_of(user: object) -> tuple[tuple[DialogueAct, ...], str | None]:
    """The acts of a simulator's opening message, if it records them (`opening_acts`,
    `acts_by` attributes after `opening()`): simulators of other harnesses need not."""
    acts = getattr(user, "opening_acts", ())
    return tuple(acts), getattr(user, "acts_by", None) if acts else None


class UserSimulator(Protocol):
    kind: str  # "rule", "llm", ...

    def opening(self) -> str: ...

    def respond(self, agent_text: str) -> UserReply: ...

    def react_to_commit(self, item_id: str | None) -> UserReply:
        """Final words after recommend(item_id), or after an abstention (None)."""
        ...
