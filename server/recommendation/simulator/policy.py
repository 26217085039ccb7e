"""The dialogue policy: from what the agent said to what the user means to say.

Deterministic: the same message in the same state gives the same acts (wording is
NLG's job and the only place randomness enters). The rules:

- asked about an attribute: state its volunteer/on_ask constraints; if it has only
  hidden ones, be vague; if it has none, voice a soft preference or no preference;
- a named title: accept it if it meets every constraint and is unseen; else reject
  with the stated constraints it breaks as reasons and one hint for an unstated one; a
  title two items share (no year telling them apart) is unclear, never guessed at;
- two titles at once: ask for one at a time; empty, off-topic, greeting, plain
  statements: the matching short act.
"""

from __future__ import annotations

from dataclasses import replace

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.server.recommendation.simulator.agenda import Agenda
from taurec.server.recommendation.simulator.hints import hints_for
from taurec.server.recommendation.simulator.nlu import AgentMessage, Attribute, TitleRef
from taurec.tasks.recommendation.constraint import Reveal

K = ActKind


class DialoguePolicy:
    def __init__(self, agenda: Agenda, catalog: Catalog) -> None:
        self.agenda = agenda
        self.catalog = catalog
        self._answered: set[Attribute] = set()

    def decide(self, msg: AgentMessage) -> list[Act]:
        if msg.empty:
            return [Act(K.EMPTY)]
        acts: list[Act] = []
        for attribute in Attribute:  # enum order keeps answers in a stable order
            if attribute in msg.asked and not (attribute is Attribute.HISTORY and msg.titles):
                acts += self.answer(attribute)
        vague = [a for a in acts if a.kind is K.VAGUE]
        if len(vague) > 1:  # one "I'll know it when I see it" is enough
            acts = [a for a in acts if a.kind is not K.VAGUE or a is vague[0]]
            acts[acts.index(vague[0])] = replace(vague[0], new=any(a.new for a in vague))
        if len(msg.titles) > 1:
            acts.append(Act(K.ONE_AT_A_TIME))
        elif msg.titles:
            acts += self.react(msg.titles[0], asked_if_seen=msg.asks_if_seen)
        if acts:
            return acts
        if msg.greeting:
            return [Act(K.GREETING, constraints=tuple(self.agenda.volunteer))]
        if not msg.on_topic:
            return [Act(K.OFF_TOPIC)]
        if msg.is_question:
            return [Act(K.UNCLEAR, constraints=tuple(self.agenda.volunteer))]
        if self.agenda.accepted:
            return [Act(K.ALREADY_ACCEPTED, item_id=self.agenda.accepted)]
        return [Act(K.ACK)]

    # --- questions ------------------------------------------------------------------------

    def answer(self, attribute: Attribute) -> list[Act]:
        """What the user says when asked about `attribute`."""
        agenda = self.agenda
        repeated = attribute in self._answered
        self._answered.add(attribute)
        if attribute is Attribute.HISTORY:
            return [Act(K.HISTORY, attribute, repeated=repeated, new=agenda.tell("history"))]
        if attribute is Attribute.OTHER:
            return self._anything_else()
        sayable = agenda.sayable(attribute)
        if sayable:
            new = agenda.tell(*(agenda.key(c) for c in sayable))
            return [Act(K.INFORM, attribute, tuple(sayable), repeated=not new, new=new)]
        if agenda.has_hidden(attribute):
            new = agenda.tell(f"vague:{attribute}")
            return [Act(K.VAGUE, attribute, repeated=not new, new=new)]
        soft = agenda.soft_for(attribute)
        fresh = [(k, text) for k, text in soft if k not in agenda.told]
        if fresh:
            agenda.tell(fresh[0][0])
            return [Act(K.SOFT, attribute, options=(fresh[0][1],), new=True)]
        if soft:  # already voiced: say it again rather than contradict it
            return [Act(K.SOFT, attribute, options=(soft[0][1],), repeated=True)]
        new = agenda.tell(f"none:{attribute}")
        return [Act(K.NO_PREFERENCE, attribute, repeated=not new, new=new)]

    def _anything_else(self) -> list[Act]:
        agenda = self.agenda
        # fields no specific question reaches (title, sponsored) are told on "anything else?"
        other = [
            c
            for c in agenda.sayable(Attribute.OTHER)
            if c.reveal is Reveal.ON_ASK and not agenda.is_told(c)
        ]
        if other:
            agenda.tell(*(agenda.key(c) for c in other))
            return [Act(K.INFORM, Attribute.OTHER, tuple(other), new=True)]
        vague = self._vague_attributes()
        fresh = [
            (k, text)
            for k, text, attrs in agenda.soft
            if k not in agenda.told and not attrs & vague
        ]
        if fresh:
            agenda.tell(fresh[0][0])
            return [Act(K.SOFT, Attribute.OTHER, options=(fresh[0][1],), new=True)]
        new = agenda.tell("none:other")
        return [Act(K.NOTHING_ELSE, Attribute.OTHER, repeated=not new, new=new)]

    def _vague_attributes(self) -> set[Attribute]:
        """Attributes the user is vague about: hidden constraints and nothing sayable."""
        return {a for a in Attribute if self.agenda.has_hidden(a) and not self.agenda.sayable(a)}

    # --- titles ---------------------------------------------------------------------------

    def _pick(self, ref: TitleRef) -> Item | None:
        """The item a named title means; None when it names none (a year no item of the
        title has) or several (two items share the title and no year told them apart): the
        user then says it is unclear, never guessing the one that suits them."""
        if len(ref.item_ids) != 1:
            return None
        return self.catalog.get(ref.item_ids[0])

    def react(self, ref: TitleRef, *, asked_if_seen: bool = False) -> list[Act]:
        """The user's reaction to one named (pitched) title."""
        item = self._pick(ref)
        if item is None:
            return [Act(K.UNCLEAR)]
        agenda = self.agenda
        if item.id in agenda.watched:
            return [Act(K.SEEN, item_id=item.id, new=agenda.tell(f"seen:{item.id}"))]
        acts = [Act(K.NOT_SEEN, item_id=item.id)] if asked_if_seen else []
        said, unsaid = agenda.violations(item)
        if not said and not unsaid:
            agenda.accepted = item.id
            return [*acts, Act(K.ACCEPT, item_id=item.id, new=agenda.tell(f"ok:{item.id}"))]
        hint = unsaid[0] if unsaid else None
        new = agenda.tell(f"hint{agenda.constraints.index(hint)}") if hint else False
        return [
            *acts,
            Act(
                K.REJECT,
                constraints=tuple(said),
                options=hints_for(hint, item) if hint else (),
                item_id=item.id,
                new=new,
            ),
        ]

    def commit(self, item_id: str | None) -> Act:
        """The user's verdict on the committed recommendation (or abstention)."""
        if item_id is None:
            ok = self.agenda.task.no_valid_recommendation
            return Act(K.ABSTAIN_OK if ok else K.ABSTAIN_SAD)
        item = self.catalog.get(item_id)
        if item is None:
            return Act(K.COMMIT_UNKNOWN, item_id=item_id)
        if item.id in self.agenda.watched:
            return Act(K.COMMIT_SEEN, item_id=item_id)
        said, unsaid = self.agenda.violations(item)
        if not said and not unsaid:
            return Act(K.COMMIT_HAPPY, item_id=item_id)
        options = hints_for(unsaid[0], item) if unsaid and not said else ()
        return Act(K.COMMIT_WRONG, constraints=tuple(said), options=options, item_id=item_id)
