"""UserSimCRS's agenda-based user (ABUS), `--simulator abus`: the paper's user.

**Information need.** C: the task's constraints the user may state (volunteer and on_ask;
a hidden constraint is, by the task's definition, never stated); R: 1 or 2 requests,
slots to learn about a title (requestable minus constrained), drawn per seed.

**Agenda.** A stack: `start`, a `disclose` per attribute of C, an `inquire` per request,
`stop`. One entry is popped per turn and said; `stop` ends the dialogue, and so does an
empty agenda.

**Each turn** the agent's message is read by the agent NLU (the acts the log records) and
every agent act gets its response, pushed on top of the agenda in order:
- elicit: a value named (e.g. a genre): `yes`/`no`/`neutral` by the preference model;
  a slot: its C values (`disclose`), else a value the preference model likes (pref >=
  0.25, at most 10 tries over the history's values; `slot_values="catalog"`, as
  UserSimCRS: over the catalog's values of the slot, drawn at random), else `dont_know`;
- recommend: per item, `seen` if the user rated it, and `accept`/`reject`/`neutral` from
  the preference model (the user's rating, else UserSimCRS's memoised coin), at once;
- inquire: `yes`/`no` per slot asked (an open request or not); with none named, the
  user asks an open request (else a requestable slot) about the title in discussion;
- answer: fills the request it answers (cleaning then drops that `inquire`).
With no response at all and no agent intent the last popped act expects (the intent
schema, intent_schema.py), the user's intents are sampled from transition matrices when
there are some (`--agenda-dialogues`). Then the agenda is cleaned (duplicates,
answered requests) and one entry popped.

Where this departs from UserSimCRS's code (its defects, not reproduced): every agent
act's responses are kept (upstream, the last one's only); a response's acts come out
in the order made (upstream pushes each to the front, so they come out last first);
answered requests are filled (upstream nothing fills them and cleaning drops the
unanswered ones); the inquire fallback works (upstream calls a missing attribute); a
sampled `disclose` says what is not said yet. A liked or disliked slot value is
`yes`/`no`, not `accept`/`reject`, so that acceptance means a title (in UserSimCRS's
metrics an ACC of a genre counts as an accepted recommendation). Deterministic per seed.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import Final

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.server.recommendation.simulator.agent_nlu import AgentActReader, AgentNLU
from taurec.server.recommendation.simulator.base import UserReply
from taurec.server.recommendation.simulator.iard import disclose
from taurec.server.recommendation.simulator.information_need import InformationNeed
from taurec.server.recommendation.simulator.intent_schema import IntentSchema
from taurec.server.recommendation.simulator.item_facts import QUESTIONS
from taurec.server.recommendation.simulator.nlg import Speaker
from taurec.server.recommendation.simulator.nlu import FIELD_ATTRIBUTE, Attribute, MessageReader
from taurec.server.recommendation.simulator.preference_model import LIKE, PreferenceModel, verdict
from taurec.server.recommendation.simulator.sampled_acts import PLAIN_WORDS
from taurec.server.recommendation.simulator.slot_values import SlotValues
from taurec.server.recommendation.simulator.transitions import TransitionMatrices
from taurec.tasks.recommendation.constraint import Reveal
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.dialogue_acts import DialogueAct

K = ActKind
#: One agenda entry: the acts said together when it is popped.
Entry = tuple[DialogueAct, ...]
_TRIES: Final = 10
#: The item field whose values the preference model has for an attribute.
_PREFERRED_FIELD: Final = {Attribute.GENRE: "genres", Attribute.LANGUAGE: "original_language"}
#: The item field an unconstrained question about an attribute is answered from, besides
#: those above, when the values come from the catalog.
_CATALOG_FIELD: Final = {Attribute.PEOPLE: "director", Attribute.RECENCY: "year"}
_GONE = "(The user has left the conversation.)"


class AbusUser:
    kind = "abus"
    acts_by = "rule"

    def __init__(
        self,
        task: RecommendationTask,
        catalog: Catalog,
        seed: int,
        *,
        reader: MessageReader | None = None,
        transitions: TransitionMatrices | None = None,
        schema: IntentSchema | None = None,
        nlu: AgentActReader | None = None,
        slot_values: SlotValues | None = None,
    ) -> None:
        """`slot_values`: the values an unconstrained slot is answered from (None: the
        rated history's; CatalogValues: the catalog's, as UserSimCRS)."""
        self.task = task
        self.slot_values = slot_values
        self.catalog = catalog
        self.schema = schema or IntentSchema.load()
        self.need = InformationNeed(task, seed)
        self.stated = [c for c in task.constraints if c.reveal is not Reveal.HIDDEN]
        self.preferences = PreferenceModel(task.user, catalog, seed)
        self.nlu: AgentActReader = nlu or AgentNLU(catalog, reader)
        self.speaker = Speaker(task, random.Random(seed))
        self.rng = random.Random(f"abus:{seed}")
        self.transitions = transitions
        self.sampler = random.Random(f"transitions:{seed}")
        self.answered: set[str] = set()  # request slots the agent has answered
        self.candidate: Item | None = None  # the title in discussion (the last recommended)
        by_attribute: dict[Attribute, list[DialogueAct]] = {}
        for c in self.stated:
            by_attribute.setdefault(FIELD_ATTRIBUTE[c.field], []).append(disclose(c))
        self.agenda: deque[Entry] = deque(
            [
                (self._act("start"),),
                *(tuple(acts) for acts in by_attribute.values()),
                *((self._act("inquire", slot=s),) for s in self.need.requests),
                (self._act("stop"),),
            ]
        )
        self.last: Entry = ()
        self.done = False
        self.commits = 0
        self.opening_acts: tuple[DialogueAct, ...] = ()

    def _act(self, role: str, **fields: object) -> DialogueAct:
        return DialogueAct(intent=self.schema.intent(role), **fields)

    # --- the protocol ---------------------------------------------------------------------

    def opening(self) -> str:
        entry = self._pop()
        self.opening_acts = entry
        return self._words(entry)

    def respond(self, agent_text: str) -> UserReply:
        if self.done:
            return UserReply(_GONE, left=True)
        agent_acts = self.nlu.acts(agent_text, self._open_requests())
        responses: list[Entry] = []
        for act in agent_acts:
            case = _CASES.get(self._role(act.intent))
            if case is not None:
                responses += case(self, act)
        if not responses:
            responses = self._sampled({a.intent for a in agent_acts})
        self.agenda.extendleft(reversed(responses))  # said in the order made
        self._clean()
        return self._reply(self._pop())

    def react_to_commit(self, item_id: str | None) -> UserReply:
        self.commits += 1
        item = self.catalog.get(item_id or "")
        if item is None:  # an abstention, or an id the user cannot look at
            self.done = True
            return self._reply((self._act("stop"),))
        entry = self._verdicts(item)
        accepted = any(a.intent == self.schema.intent("like") for a in entry)
        final = self.commits >= self.task.protocol.max_recommendations
        self.done = accepted or final
        return self._reply(entry, left=False)

    # --- the four cases -------------------------------------------------------------------

    def _role(self, agent_intent: str) -> str:
        s = self.schema
        if agent_intent in s.agent_elicit_intents:
            return "elicit"
        if agent_intent in s.agent_set_retrieval:
            return "recommend"
        if agent_intent in s.agent_inquire_intents:
            return "inquire"
        return agent_intent  # "answer" fills a request; the rest draws no response

    def _elicit(self, act: DialogueAct) -> list[Entry]:
        try:
            attribute = Attribute(act.slot or "")
        except ValueError:
            return [(self._act("dont_know"),)]
        field = _PREFERRED_FIELD.get(attribute)
        if act.value and field:  # "Do you like comedies?": a preference per value named
            verdicts = {"like": "yes", "dislike": "no", "neutral": "neutral"}
            return [
                tuple(
                    self._act(
                        verdicts[verdict(self.preferences.value(field, v))], slot=field, value=v
                    )
                    for v in act.value.split(", ")
                )
            ]
        stated = [disclose(c) for c in self.stated if FIELD_ATTRIBUTE[c.field] is attribute]
        if stated:
            return [tuple(stated)]
        field = field or _CATALOG_FIELD.get(attribute)
        if field and self.slot_values is not None:
            liked_value = self._catalog_value(field)
            if liked_value is not None:
                return [(self._act("disclose", slot=field, value=liked_value),)]
        elif field:
            liked = self.preferences.liked_values(field)[:_TRIES]
            if liked and self.preferences.value(field, liked[0]) >= LIKE:
                return [(self._act("disclose", slot=field, value=liked[0]),)]
        return [(self._act("dont_know", slot=attribute.value),)]

    def _catalog_value(self, field: str) -> str | None:
        """A value of `field` the preference model likes, drawn from the catalog's values
        at random, at most 10 draws (UserSimCRS's `get_slot_preference`)."""
        assert self.slot_values is not None
        values = self.slot_values.of(field)
        for _ in range(_TRIES if values else 0):
            value = self.rng.choice(values)
            if self.preferences.value(field, value) >= LIKE:
                return value
        return None

    def _recommend(self, act: DialogueAct) -> list[Entry]:
        items = [it for i in act.items if (it := self.catalog.get(i)) is not None]
        if not items:
            return [(self._act("dont_know"),)]
        self.candidate = items[-1]
        return [self._verdicts(item) for item in items]

    def _inquire(self, act: DialogueAct) -> list[Entry]:
        if act.slot:
            role = "yes" if act.slot in self._open_slots() else "no"
            return [(self._act(role, slot=act.slot),)]
        slots = self._open_slots() or list(self.need.requests)
        if not slots:
            return []
        items = (self.candidate.id,) if self.candidate else ()
        return [(self._act("inquire", slot=self.rng.choice(slots), items=items),)]

    def _answer(self, act: DialogueAct) -> list[Entry]:
        if act.slot in self.need.requests:
            self.answered.add(act.slot)
        return []

    def _verdicts(self, item: Item) -> Entry:
        acts = []
        if item.id in self.task.user.watched_ids:
            acts.append(self._act("item_consumed", items=(item.id,)))
        role = {"like": "like", "dislike": "dislike", "neutral": "neutral"}[
            verdict(self.preferences.item(item.id))
        ]
        acts.append(self._act(role, items=(item.id,)))
        return tuple(acts)

    # --- the agenda -----------------------------------------------------------------------

    def _open_slots(self) -> list[str]:
        return [s for s in self.need.requests if s not in self.answered]

    def _open_requests(self) -> list[DialogueAct]:
        """The user's open questions about the title in discussion (the NLU reads the
        agent's answers against them)."""
        if self.candidate is None:
            return []
        return [
            DialogueAct(intent="inquire", slot=s, items=(self.candidate.id,))
            for s in self._open_slots()
        ]

    def _sampled(self, agent_intents: set[str]) -> list[Entry]:
        """UserSimCRS's *other* case: user intents sampled for the agent's, when its last
        act expected none of them and there are transition matrices."""
        last = self.last[-1].intent if self.last else self.schema.intent("start")
        if self.transitions is None or self.schema.expects(last, agent_intents or {"other"}):
            return []
        out: list[Entry] = []
        for intent in self.transitions.sample(agent_intents or {"other"}, self.sampler):
            if intent == "disclose":  # what the agenda has not said yet, else any of C
                unsaid = [e for e in self.agenda if e and e[0].intent == "disclose"]
                if unsaid:
                    out.append(unsaid[0])
                elif self.stated:
                    out.append((disclose(self.rng.choice(self.stated)),))
            elif intent == "inquire":
                out += self._inquire(DialogueAct(intent="inquire"))
            elif intent in ("accept", "reject", "neutral", "seen"):
                if self.candidate is not None:
                    out.append((DialogueAct(intent=intent, items=(self.candidate.id,)),))
            elif intent != "start":
                out.append((DialogueAct(intent=intent),))
        return out

    def _clean(self) -> None:
        """Drop repeated entries and the requests the agent has answered."""
        kept: list[Entry] = []
        for entry in self.agenda:
            if entry in kept:
                continue
            if any(a.intent == "inquire" and a.slot in self.answered for a in entry):
                continue
            kept.append(entry)
        self.agenda = deque(kept)

    def _pop(self) -> Entry:
        entry = self.agenda.popleft() if self.agenda else (self._act("stop"),)
        self.last = entry
        return entry

    # --- words ----------------------------------------------------------------------------

    def _reply(self, entry: Entry, *, left: bool | None = None) -> UserReply:
        stop = self.schema.intent("stop")
        if left is None:
            left = any(a.intent == stop for a in entry)
        self.done |= left
        like = self.schema.intent("like")
        accepted = next((a.items[0] for a in entry if a.intent == like and a.items), None)
        return UserReply(
            self._words(entry), left=left, accepted=accepted, acts=entry, acts_by=self.acts_by
        )

    def _words(self, entry: Entry) -> str:
        stated = [c for c in self.stated if disclose(c) in entry]
        parts = []
        if stated:  # the constraints of one entry are stated together
            attribute = FIELD_ATTRIBUTE[stated[0].field]
            parts.append(self.speaker.say([Act(K.INFORM, attribute, tuple(stated))]))
        told = {disclose(c) for c in stated}
        parts += [w for a in entry if a not in told and (w := self._word(a))]
        return " ".join(dict.fromkeys(parts)) or "Okay."

    def _word(self, act: DialogueAct) -> str:
        title = self._title(act)
        i = act.intent
        if i == "start":
            return self.speaker.opening([])
        if i == "disclose":
            return f"I usually enjoy {str(act.value).lower()} movies."
        if i == "inquire":
            return QUESTIONS.get(act.slot or "", "Can you tell me more about {t}?").format(
                t=title or "it"
            )
        words = {"accept": K.ACCEPT, "reject": K.REJECT, "seen": K.SEEN}
        if i in words and act.items:
            return self.speaker.say([Act(words[i], item_id=act.items[0])])
        if i == "neutral" and act.items:
            return f"I'm not sure about {title}."
        if i in ("yes", "no", "neutral") and act.slot and act.value:
            return {"yes": "I like {v}.", "no": "Not really into {v}.", "neutral": "{V} is fine."}[
                i
            ].format(v=act.value.lower(), V=act.value.capitalize())
        if i == "stop":
            return self.speaker.say([Act(K.LEAVE)])
        if i in PLAIN_WORDS:
            return PLAIN_WORDS[i]
        return self.speaker.say([Act(K.ACK)])

    def _title(self, act: DialogueAct) -> str | None:
        item = self.catalog.get(act.items[0]) if act.items else self.candidate
        return item.title if item is not None else None


_CASES: dict[str, Callable[[AbusUser, DialogueAct], list[Entry]]] = {
    "elicit": AbusUser._elicit,
    "recommend": AbusUser._recommend,
    "inquire": AbusUser._inquire,
    "answer": AbusUser._answer,
}


def abus_users(
    catalog: Catalog,
    reader: MessageReader | None = None,
    transitions: TransitionMatrices | None = None,
    schema: IntentSchema | None = None,
    nlu: AgentActReader | None = None,
    *,
    slot_values: str = "history",
) -> Callable[[RecommendationTask, Catalog, int], AbusUser]:
    """A simulator factory for the server: one title index, one set of transition
    matrices, one intent schema, one NLU (None: the deterministic one) and one table of
    the catalog's slot values (`slot_values="catalog"`) serve every episode."""
    shared = reader or MessageReader(catalog.items)
    loaded = schema or IntentSchema.load()
    values = SlotValues(catalog) if slot_values == "catalog" else None

    def make(task: RecommendationTask, catalog: Catalog, seed: int) -> AbusUser:
        return AbusUser(
            task,
            catalog,
            seed,
            reader=shared,
            transitions=transitions,
            schema=loaded,
            nlu=nlu,
            slot_values=values,
        )

    return make
