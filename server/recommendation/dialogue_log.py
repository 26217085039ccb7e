"""The dialogue side of an episode's log: each message with the dialogue acts it carries,
and the user's requests the agent has not answered yet (the agent-side NLU reads the
agent's answers against them)."""

from __future__ import annotations

from taurec.server.recommendation.simulator import UserReply
from taurec.server.recommendation.simulator.agent_nlu import AgentActReader
from taurec.server.trajectory_writer import TrajectoryWriter
from taurec.tasks.trajectory.dialogue_acts import DialogueAct


class DialogueLog:
    """Writes an episode's messages; `nlu` reads the acts of the agent's (None: unread)."""

    def __init__(self, writer: TrajectoryWriter, nlu: AgentActReader | None) -> None:
        self._log = writer
        self._nlu = nlu
        self.open_requests: list[DialogueAct] = []  # the user's unanswered inquire acts

    def agent_message(self, text: str) -> None:
        if self._nlu is None:
            self._log.agent_message(text)
            return
        acts = self._nlu.acts(text, self.open_requests)
        answered = {(a.slot, i) for a in acts if a.intent == "answer" for i in a.items}
        self.open_requests = [
            r for r in self.open_requests if not any((r.slot, i) in answered for i in r.items)
        ]
        self._log.agent_message(text, acts=acts, acts_by=self._nlu.acts_by)

    def user_reply(self, reply: UserReply, latency_ms: float) -> None:
        self._log.user_message(
            reply.text,
            left=reply.left,
            latency_ms=latency_ms,
            accepted=reply.accepted,
            acts=reply.acts,
            acts_by=reply.acts_by,
        )
        asked = [a for a in reply.acts if a.intent == "inquire" and a.slot and a.items]
        known = {(a.slot, tuple(a.items)) for a in self.open_requests}
        self.open_requests += [a for a in asked if (a.slot, tuple(a.items)) not in known]
