"""The rule-based simulated user: NLU -> dialogue policy over an agenda -> NLG.

One instance per episode. Deterministic per seed: the only randomness is NLG's
`random.Random(seed)`. Patience: a turn is fruitless when it tells the agent nothing
new and brings no acceptable pitch; after `patience` fruitless turns in total the user
says goodbye and leaves (`left=True`). The server separately enforces max_turns.
"""

from __future__ import annotations

import random

from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.server.recommendation.simulator.agenda import Agenda
from taurec.server.recommendation.simulator.base import UserReply, UserSimulator
from taurec.server.recommendation.simulator.iard import iard_acts, opening_acts
from taurec.server.recommendation.simulator.nlg import Speaker
from taurec.server.recommendation.simulator.nlu import MessageReader, TitleRef
from taurec.server.recommendation.simulator.policy import DialoguePolicy
from taurec.tasks.recommendation.task import RecommendationTask

DEFAULT_PATIENCE = 6
_GONE = "(The user has left the conversation.)"


class RuleBasedUser:
    """A UserSimCRS-style agenda-based user for one task.

    `reader` may be shared between users of one catalog: building it indexes every
    title, which is worth doing once for a large catalog.
    """

    kind = "rule"
    acts_by = "rule"

    def __init__(
        self,
        task: RecommendationTask,
        catalog: Catalog,
        seed: int,
        *,
        patience: int = DEFAULT_PATIENCE,
        reader: MessageReader | None = None,
    ) -> None:
        if patience < 1:
            raise ValueError(f"patience must be at least 1, got {patience}")
        self.task = task
        self.patience = patience
        self.agenda = Agenda(task)
        self._catalog = catalog
        self._reader = reader
        self.policy = DialoguePolicy(self.agenda, catalog)
        self.speaker = Speaker(task, random.Random(seed))
        self.fruitless_turns = 0
        self.commits = 0
        self.done = False  # left, or the conversation ended with a commit
        self.last_acts: list[Act] = []  # for tests and debugging: what the user meant
        self.opening_acts = opening_acts(self.agenda.volunteer)

    @property
    def reader(self) -> MessageReader:
        if self._reader is None:  # built on first use: an opening needs no title index
            self._reader = MessageReader(self._catalog.items)
        return self._reader

    def opening(self) -> str:
        return self.speaker.opening(self.agenda.volunteer)

    def respond(self, agent_text: str) -> UserReply:
        if self.done:
            return UserReply(_GONE, left=True)
        acts = self.policy.decide(self.reader.read(agent_text))
        accepted = next((a.item_id for a in acts if a.kind is ActKind.ACCEPT), None)
        if accepted is None and not any(a.new for a in acts):
            self.fruitless_turns += 1
        if self.fruitless_turns >= self.patience:
            self.done = True
            self.last_acts = [Act(ActKind.LEAVE)]
            return self._reply(self.speaker.say(self.last_acts), left=True)
        self.last_acts = acts
        return self._reply(self.speaker.say(acts), accepted=accepted)

    def _reply(self, text: str, *, left: bool = False, accepted: str | None = None) -> UserReply:
        acts = iard_acts(self.last_acts)
        return UserReply(text, left=left, accepted=accepted, acts=acts, acts_by="rule")

    def react_to_commit(self, item_id: str | None) -> UserReply:
        """The user's words on a committed title; `accepted` is set when happy.

        Usually the last message. When the task allows more committing calls and this
        one missed, the user reacts as to a pitch and the conversation goes on.
        """
        self.commits += 1
        act = self.policy.commit(item_id)
        happy = act.kind is ActKind.COMMIT_HAPPY
        final = item_id is None or self.commits >= self.task.protocol.max_recommendations
        item = self._catalog.get(item_id) if item_id else None
        if final or happy or item is None:
            self.done = True
            self.last_acts = [act]
        else:
            self.last_acts = self.policy.react(TitleRef(item.title, (item.id,), 0))
        return self._reply(self.speaker.say(self.last_acts), accepted=item_id if happy else None)


def make_rule_user(task: RecommendationTask, catalog: Catalog, seed: int) -> UserSimulator:
    """The rule-based (agenda) user for one episode, deterministic per `seed`."""
    return RuleBasedUser(task, catalog, seed)
