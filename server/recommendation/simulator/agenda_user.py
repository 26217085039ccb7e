"""An agenda user with requests (`--simulator agenda-requests`), not the paper's ABUS
(abus.py): it asks about a title before taking it, judges titles by the task (never
contradicting it), and leaves on patience. NLU -> agenda update -> NLG.

The agenda is a stack of IARD acts built from the information need: `start`, a
`disclose` per volunteered constraint, an `inquire` per request, `stop`. The opening
pops `start` and the disclosures. Each agent message is read by the agent-side NLU (the
acts the log records) and the agenda updated by case (`_CASES`):

- elicit: a slot with sayable constraints -> `disclose` each; only hidden ones ->
  `dont_know`; none -> a liked value from the preference model (pref > 0.25), else
  `dont_know`; a genre named in the question -> `yes`/`no`/`neutral` by preference;
- recommend: per item (every item, not the last only): watched -> `seen`; breaks a
  constraint -> `reject` (stated ones given as reasons, a hint for the rest); fits ->
  `inquire` the open requests about it, one per turn, then `accept`; a shared title -> `dont_know`;
- answer: closes the request it answers;
- inquire / other: the next agenda act (an open request is asked again: requests are
  never dropped unanswered), else a short acknowledgement; with transition matrices
  (transitions.py) and no agent intent the user's last act expected
  (sampled_acts.py), the user intents are sampled instead (`_sampled`).

UserSimCRS pushes the responses onto the agenda and pops one act per turn; here every
response to this turn's agent acts is said, in order, so none is lost; with none, the
agenda's next act applies. Deterministic per seed. Patience: after
`patience` fruitless turns (nothing new told, no request answered, nothing accepted)
the agenda's `stop` is popped and the user leaves.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.server.recommendation.simulator.agenda import Agenda
from taurec.server.recommendation.simulator.agent_nlu import AgentActReader, AgentNLU
from taurec.server.recommendation.simulator.base import UserReply
from taurec.server.recommendation.simulator.hints import hints_for
from taurec.server.recommendation.simulator.iard import disclose, iard_acts
from taurec.server.recommendation.simulator.information_need import InformationNeed
from taurec.server.recommendation.simulator.item_facts import QUESTIONS
from taurec.server.recommendation.simulator.nlg import Speaker
from taurec.server.recommendation.simulator.nlu import Attribute, MessageReader
from taurec.server.recommendation.simulator.policy import DialoguePolicy
from taurec.server.recommendation.simulator.preference_model import PreferenceModel, verdict
from taurec.server.recommendation.simulator.sampled_acts import (
    PLAIN_WORDS,
    expects,
    fresh_disclosure,
)
from taurec.server.recommendation.simulator.transitions import TransitionMatrices
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.dialogue_acts import DialogueAct

AGENDA_PATIENCE = 6
K = ActKind
_GONE = "(The user has left the conversation.)"
_VERDICT_INTENT = {"like": "yes", "dislike": "no", "neutral": "neutral"}
_GENRE_WORDS = {"like": "I like {g}.", "dislike": "Not really into {g}.", "neutral": "{g} is fine."}


class _Turn:
    """What the user says this turn: (logged act, wording) pairs, and whether it was fruitful."""

    def __init__(self) -> None:
        self.said: list[tuple[DialogueAct, Act | str]] = []
        self.fruitful = False

    def add(self, act: DialogueAct, words: Act | str, *, new: bool = False) -> None:
        self.said.append((act, words))
        self.fruitful |= new


class AgendaUser:
    kind = "agenda-requests"
    acts_by = "rule"

    def __init__(
        self,
        task: RecommendationTask,
        catalog: Catalog,
        seed: int,
        *,
        patience: int = AGENDA_PATIENCE,
        reader: MessageReader | None = None,
        transitions: TransitionMatrices | None = None,
        nlu: AgentActReader | None = None,
    ) -> None:
        if patience < 1:
            raise ValueError(f"patience must be at least 1, got {patience}")
        self.task = task
        self.catalog = catalog
        self.patience = patience
        self.need = InformationNeed(task, seed)
        self.preferences = PreferenceModel(task.user, catalog, seed)
        self.facts = Agenda(task)  # what may be said, what has been told
        self.policy = DialoguePolicy(self.facts, catalog)  # commits, "anything else?"
        self.nlu: AgentActReader = nlu or AgentNLU(catalog, reader)
        self.speaker = Speaker(task, random.Random(seed))
        volunteer = self.facts.volunteer
        self.stack: deque[DialogueAct] = deque(
            [
                DialogueAct(intent="start"),
                *(disclose(c) for c in volunteer),
                *(DialogueAct(intent="inquire", slot=s) for s in self.need.requests),
                DialogueAct(intent="stop"),
            ]
        )
        self.candidate: Item | None = None  # a fitting title whose requests are being asked
        self.accepted: str | None = None
        self.fruitless_turns = 0
        self.commits = 0
        self.done = False
        self.opening_acts: tuple[DialogueAct, ...] = ()
        self.transitions = transitions
        self.sampler = random.Random(f"transitions:{seed}")
        self.last_intent = "start"  # the user's last act ("the popped act")

    # --- the protocol ---------------------------------------------------------------------

    def opening(self) -> str:
        acts = [self.stack.popleft()]
        while self.stack and self.stack[0].intent == "disclose":
            acts.append(self.stack.popleft())
        self.opening_acts = tuple(acts)
        self.last_intent = acts[-1].intent
        return self.speaker.opening(self.facts.volunteer)

    def respond(self, agent_text: str) -> UserReply:
        if self.done:
            return UserReply(_GONE, left=True)
        agent_acts = self.nlu.acts(agent_text, self._open_inquiries())
        turn = _Turn()
        # answers first, so a pitch that also answers a request is not asked it again
        ordered = sorted(agent_acts, key=lambda a: a.intent != "answer")
        for act in ordered:  # every agent act's responses survive, in order
            _CASES.get(act.intent, AgendaUser._other)(self, act, turn)
        if not turn.said and not self._sampled(agent_acts, turn):
            self._pop_next(turn)
        if turn.said:
            self.last_intent = turn.said[-1][0].intent
        self._clean()
        if not turn.fruitful:
            self.fruitless_turns += 1
        if self.fruitless_turns >= self.patience:
            self.done = True
            stop = next((a for a in self.stack if a.intent == "stop"), DialogueAct(intent="stop"))
            return self._reply([(stop, Act(K.LEAVE))], left=True)
        accepted = next((a.items[0] for a, _ in turn.said if a.intent == "accept"), None)
        return self._reply(turn.said, accepted=accepted)

    def react_to_commit(self, item_id: str | None) -> UserReply:
        self.commits += 1
        act = self.policy.commit(item_id)
        happy = act.kind is K.COMMIT_HAPPY
        final = item_id is None or self.commits >= self.task.protocol.max_recommendations
        self.done = final or happy or self.catalog.get(item_id or "") is None
        text = self.speaker.say([act])
        acts = iard_acts([act])
        if acts:
            self.last_intent = acts[-1].intent
        return UserReply(text, accepted=item_id if happy else None, acts=acts, acts_by="rule")

    # --- the four cases -------------------------------------------------------------------

    def _elicit(self, act: DialogueAct, turn: _Turn) -> None:
        if act.slot is None:
            return
        try:
            attribute = Attribute(act.slot)
        except ValueError:
            return
        if attribute in (Attribute.HISTORY, Attribute.OTHER):
            for rule_act in self.policy.answer(attribute):
                for d in iard_acts([rule_act]):
                    turn.add(d, rule_act, new=rule_act.new)
            return
        facts = self.facts
        sayable = facts.sayable(attribute)
        if sayable:
            new = facts.tell(*(facts.key(c) for c in sayable))
            words = Act(K.INFORM, attribute, tuple(sayable), repeated=not new)
            for c in sayable:
                turn.add(disclose(c), words if c is sayable[0] else "", new=new)
            return
        slot = attribute.value
        if facts.has_hidden(attribute):
            new = facts.tell(f"vague:{attribute}")
            turn.add(DialogueAct(intent="dont_know", slot=slot), Act(K.VAGUE, attribute), new=new)
            return
        if attribute is Attribute.GENRE:
            named = act.value.split(", ") if act.value else []
            if named:
                for g in named:
                    v = verdict(self.preferences.value("genres", g))
                    turn.add(
                        DialogueAct(intent=_VERDICT_INTENT[v], slot="genres", value=g),
                        _GENRE_WORDS[v].format(g=g.lower()),
                    )
                return
            liked = self.preferences.liked_values("genres")
            if liked:
                new = facts.tell(f"pref:{liked[0]}")
                turn.add(
                    DialogueAct(intent="disclose", slot="genres", value=liked[0]),
                    f"I usually enjoy {liked[0].lower()} movies.",
                    new=new,
                )
                return
        new = facts.tell(f"none:{attribute}")
        turn.add(
            DialogueAct(intent="dont_know", slot=slot), Act(K.NO_PREFERENCE, attribute), new=new
        )

    def _recommend(self, act: DialogueAct, turn: _Turn) -> None:
        items = [it for i in act.items if (it := self.catalog.get(i)) is not None]
        if len(items) != 1:  # none, or a title two items share: unclear, never guessed at
            turn.add(DialogueAct(intent="dont_know"), Act(K.UNCLEAR))
            return
        item = items[0]
        facts = self.facts
        if item.id in facts.watched:
            v = verdict(self.preferences.item(item.id))
            new = facts.tell(f"seen:{item.id}")
            turn.add(
                DialogueAct(intent="seen", value=v, items=[item.id]),
                Act(K.SEEN, item_id=item.id),
                new=new,
            )
            return
        said, unsaid = facts.violations(item)
        if said or unsaid:
            hint = unsaid[0] if unsaid else None
            new = facts.tell(f"hint{facts.constraints.index(hint)}") if hint else False
            words = Act(
                K.REJECT,
                constraints=tuple(said),
                options=hints_for(hint, item) if hint else (),
                item_id=item.id,
            )
            turn.add(DialogueAct(intent="reject", items=[item.id]), words, new=new)
            for c in said:
                turn.add(disclose(c), "")
            return
        self.candidate = item
        self._ask_or_accept(item, turn, new=True)

    def _answer(self, act: DialogueAct, turn: _Turn) -> None:
        for item_id in act.items:
            if act.slot and act.value:
                self.need.answer(act.slot, item_id, act.value)
                turn.fruitful = True

    def _other(self, act: DialogueAct, turn: _Turn) -> None:
        """inquire and other: no response of their own; the agenda's next act applies."""

    # --- the sampled case (UserSimCRS "other") ---------------------------------------------

    def _sampled(self, agent_acts: list[DialogueAct], turn: _Turn) -> bool:
        """With matrices, and an agent intent the user's last act did not expect: the user
        intents sampled for the agent's intents, each filled from the need. Intents that
        open or close the dialogue (patience decides leaving) or judge a title (the task
        decides) are not taken from the sample. Whether anything was said."""
        if self.transitions is None:
            return False
        agent_intents = {a.intent for a in agent_acts} or {"other"}
        if expects(self.last_intent, agent_intents):
            return False
        for intent in self.transitions.sample(agent_intents, self.sampler):
            _FILL.get(intent, AgendaUser._unsampled)(self, intent, turn)
        return bool(turn.said)

    def _sampled_disclose(self, intent: str, turn: _Turn) -> None:
        said = fresh_disclosure(self.facts, self.preferences)
        if said is not None:
            turn.add(*said, new=True)

    def _sampled_inquire(self, intent: str, turn: _Turn) -> None:
        """An open request about the title under consideration (none: nothing)."""
        if self.candidate is not None and self.need.open_requests(self.candidate):
            self._ask_or_accept(self.candidate, turn, new=False)

    def _sampled_plain(self, intent: str, turn: _Turn) -> None:
        turn.add(DialogueAct(intent=intent), PLAIN_WORDS[intent])

    def _sampled_other(self, intent: str, turn: _Turn) -> None:
        turn.add(DialogueAct(intent="other"), Act(K.ACK))

    def _unsampled(self, intent: str, turn: _Turn) -> None:
        """start, stop, accept, reject, seen: not taken from a sample."""

    # --- the agenda -----------------------------------------------------------------------

    def _ask_or_accept(self, item: Item, turn: _Turn, *, new: bool) -> None:
        open_slots = self.need.open_requests(item)
        if open_slots:
            slot = open_slots[0]
            turn.add(
                DialogueAct(intent="inquire", slot=slot, items=[item.id]),
                QUESTIONS[slot].format(t=item.title),
                new=new,
            )
            return
        self.accepted = self.facts.accepted = item.id
        self.candidate = None
        self.stack = deque(a for a in self.stack if a.intent != "inquire")  # all asked
        new = self.facts.tell(f"ok:{item.id}")
        turn.add(
            DialogueAct(intent="accept", items=[item.id]), Act(K.ACCEPT, item_id=item.id), new=new
        )

    def _pop_next(self, turn: _Turn) -> None:
        """No response this turn: the agenda's next act, if one applies now."""
        if self.candidate is not None:  # an open request is asked again, never dropped
            self._ask_or_accept(self.candidate, turn, new=False)
        elif self.accepted is not None:
            turn.add(
                DialogueAct(intent="other", items=[self.accepted]),
                Act(K.ALREADY_ACCEPTED, item_id=self.accepted),
            )
        else:
            turn.add(DialogueAct(intent="other"), Act(K.ACK))

    def _clean(self) -> None:
        """Drop duplicates. Unlike UserSimCRS, an unanswered request is never dropped: its
        inquire act leaves the agenda only once the user accepts a title, every request
        about it answered."""
        self.stack = deque(dict.fromkeys(self.stack))

    def _open_inquiries(self) -> list[DialogueAct]:
        item = self.candidate
        if item is None:
            return []
        return [
            DialogueAct(intent="inquire", slot=s, items=[item.id])
            for s in self.need.open_requests(item)
        ]

    def _reply(
        self,
        said: list[tuple[DialogueAct, Act | str]],
        *,
        left: bool = False,
        accepted: str | None = None,
    ) -> UserReply:
        parts: list[str] = []
        for _, words in said:
            text = self.speaker.say([words]) if isinstance(words, Act) else words
            if text and text not in parts:
                parts.append(text)
        acts = tuple(a for a, _ in said)
        return UserReply(" ".join(parts), left=left, accepted=accepted, acts=acts, acts_by="rule")


_CASES: dict[str, Callable[[AgendaUser, DialogueAct, _Turn], None]] = {
    "elicit": AgendaUser._elicit,
    "recommend": AgendaUser._recommend,
    "answer": AgendaUser._answer,
    "inquire": AgendaUser._other,
    "other": AgendaUser._other,
}


_FILL: dict[str, Callable[[AgendaUser, str, _Turn], None]] = {
    "disclose": AgendaUser._sampled_disclose,
    "inquire": AgendaUser._sampled_inquire,
    "dont_know": AgendaUser._sampled_plain,
    "neutral": AgendaUser._sampled_plain,
    "yes": AgendaUser._sampled_plain,
    "no": AgendaUser._sampled_plain,
    "other": AgendaUser._sampled_other,
}


def agenda_users(
    catalog: Catalog,
    patience: int,
    reader: MessageReader | None = None,
    transitions: TransitionMatrices | None = None,
    nlu: AgentActReader | None = None,
) -> Callable[[RecommendationTask, Catalog, int], AgendaUser]:
    """A simulator factory for the server: one title index (and one set of transition
    matrices) serves every episode."""
    shared = reader or MessageReader(catalog.items)

    def make(task: RecommendationTask, catalog: Catalog, seed: int) -> AgendaUser:
        return AgendaUser(
            task,
            catalog,
            seed,
            patience=patience,
            reader=shared,
            transitions=transitions,
            nlu=nlu,
        )

    return make
