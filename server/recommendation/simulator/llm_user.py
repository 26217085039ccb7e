"""The LLM-simulated user (UserSimCRS v2 style): single-prompt or dual-prompt.

An LLM writes the words; the rule-based user decides the facts. Each episode keeps a
`RuleBasedUser` in step, fed every agent message, and its dialogue acts become private
notes in the model's prompt: what the user may now state when asked, and the verdict on
a proposed title (fits, breaks a stated requirement, breaks a hidden one: with only a
vague hint). `accepted` in each reply is the rule-based verdict too, so what counts as
accepted never depends on the model.

- single: one call per turn writes the reply; "[LEAVE]" in it ends the conversation.
- dual: a first call answers CONTINUE or STOP (unreadable: continue), then, unless the
  user stays silent, a second call writes the reply (a goodbye after STOP).

Every reply goes through the leak guard. A leaking (or empty) reply is rewritten up to
`max_regenerations` times with a note saying what not to say, then the rule-based
user's reply for that turn is used instead. `stats()` counts all of it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.act_format import parse_acts, split_acts_line
from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.server.recommendation.simulator.base import UserReply
from taurec.server.recommendation.simulator.iard import iard_acts
from taurec.server.recommendation.simulator.leak_guard import LeakGuard
from taurec.server.recommendation.simulator.llm_acts import LLMActReader
from taurec.server.recommendation.simulator.llm_client import (
    LLMClient,
    LLMUserSettings,
    Message,
    SimulatorUnavailable,
)
from taurec.server.recommendation.simulator.llm_prompts import (
    ACTS_INSTRUCTION,
    NOTE_OPEN,
    decide_messages,
    note_for,
    opening_request,
    parse_decision,
    parse_reply,
    regeneration_request,
    system_prompt,
    with_notes,
)
from taurec.server.recommendation.simulator.nlu import MessageReader
from taurec.server.recommendation.simulator.rule_user import RuleBasedUser
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.dialogue_acts import USER_INTENTS, DialogueAct

__all__ = ["LLMUser", "LLMUserSettings", "SimulatorUnavailable", "llm_users", "make_llm_user"]

_GONE = "(The user has left the conversation.)"
_UNLIMITED = 10**9  # the rule-based twin never leaves by itself: leaving is decided here


class LLMUser:
    """One episode's LLM-simulated user. Meets the `UserSimulator` protocol.

    Raises SimulatorUnavailable from `opening`, `respond` and `react_to_commit` when the
    model cannot be reached.
    """

    def __init__(
        self,
        task: RecommendationTask,
        catalog: Catalog,
        seed: int,
        settings: LLMUserSettings,
        *,
        reader: MessageReader | None = None,
    ) -> None:
        self.kind = f"llm-{settings.variant}"
        self.task = task
        self.settings = settings
        self.guard = LeakGuard(task)
        self.client = LLMClient(settings, seed)
        self.rule = RuleBasedUser(task, catalog, seed, patience=_UNLIMITED, reader=reader)
        self._catalog = catalog
        self._rng = random.Random(seed)  # picks the hint wording for hidden reasons
        prompt = system_prompt(task, self.guard, can_leave=settings.variant == "single")
        if settings.acts == "structured":
            prompt += ACTS_INSTRUCTION
        self.acts_by = "llm" if settings.acts == "structured" else "llm-classifier"
        self.classifier = LLMActReader(self.client, self.rule.reader)
        self.opening_acts: tuple[DialogueAct, ...] = ()
        self._acts_text: str | None = None  # the last generated reply's ACTS: line
        self.unlabelled_replies = 0  # structured: replies that gave no readable ACTS: line
        self.history: list[Message] = [{"role": "system", "content": prompt}]
        self.done = False
        self.leaks = 0  # generated replies the guard refused
        self.regenerations = 0
        self.fallbacks = 0  # replies taken from the rule-based user
        self.empty_replies = 0
        self.unparsed_decisions = 0  # dual: decisions read as CONTINUE for want of a word

    # --- the protocol ---------------------------------------------------------------------

    def opening(self) -> str:
        fallback = self.rule.opening()
        self.history.append({"role": "user", "content": opening_request([])})
        text, _ = self._generate("opening")
        if text is None:
            self.opening_acts, self.acts_by = self.rule.opening_acts, "rule"
            return self._say(fallback)
        self.opening_acts, self.acts_by = self._acts(text, ())
        return self._say(text)

    def respond(self, agent_text: str) -> UserReply:
        if self.done:
            return UserReply(_GONE, left=True)
        rule_reply = self.rule.respond(agent_text)
        titles = self._titles(agent_text, self.rule.last_acts)
        notes = self._notes(self.rule.last_acts, titles)
        patience = self.settings.patience
        leave = patience is not None and self.rule.fruitless_turns >= patience
        if not leave and self.settings.variant == "dual":
            self.history.append({"role": "user", "content": with_notes(agent_text, notes)})
            leave = self._decide_stop()
            self.history.pop()
        if leave:
            notes.append(self._note(Act(ActKind.LEAVE), titles) or "")
        self.history.append({"role": "user", "content": with_notes(agent_text, notes)})
        text, wants_out = self._generate("reply", titles)
        left = leave or (self.settings.variant == "single" and wants_out)
        if text is None:
            acts, by = self._rule_acts([Act(ActKind.LEAVE)] if left else self.rule.last_acts)
            text = self.rule.speaker.say([Act(ActKind.LEAVE)]) if left else rule_reply.text
        else:
            acts, by = self._acts(text, self._item_ids(agent_text, self.rule.last_acts))
        self.done = left
        return UserReply(
            self._say(text), left=left, accepted=rule_reply.accepted, acts=acts, acts_by=by
        )

    def react_to_commit(self, item_id: str | None) -> UserReply:
        rule_reply = self.rule.react_to_commit(item_id)
        titles = self._titles("", self.rule.last_acts)
        notes = self._notes(self.rule.last_acts, titles)
        if not self.rule.done:  # a missed commit with more allowed: the chat goes on
            notes.insert(0, "The assistant made it an official recommendation; it may try again.")
        self.history.append({"role": "user", "content": f"{NOTE_OPEN} {' '.join(notes)}]"})
        text, _ = self._generate("commit", titles)
        self.done = self.rule.done
        if text is None:
            acts, by = rule_reply.acts, "rule"
        else:
            acts, by = self._acts(text, (item_id,) if item_id else ())
        return UserReply(
            self._say(text if text is not None else rule_reply.text),
            accepted=rule_reply.accepted,
            acts=acts,
            acts_by=by,
        )

    def stats(self) -> dict[str, Any]:
        """Counters for the episode's end record: calls, cache, tokens, cost, leak guard."""
        return {
            **self.client.stats.as_dict(),
            "leaks": self.leaks,
            "regenerations": self.regenerations,
            "fallbacks": self.fallbacks,
            "empty_replies": self.empty_replies,
            "unparsed_decisions": self.unparsed_decisions,
            "unlabelled_replies": self.unlabelled_replies,
            "unparsed_acts": self.classifier.unparsed,
        }

    # --- internals ------------------------------------------------------------------------

    def _acts(
        self, text: str, context: tuple[str, ...] | list[str]
    ) -> tuple[tuple[DialogueAct, ...], str]:
        """The acts of a generated reply: its ACTS: line (structured), or a classification
        pass over its text (classifier)."""
        if self.settings.acts == "classifier":
            return tuple(self.classifier.classify(text, "user", context)), "llm-classifier"
        line = self._acts_text
        acts = None if line is None else parse_acts(line, USER_INTENTS, self._title_ids, context)
        if acts is None:
            self.unlabelled_replies += 1
        return tuple(acts or ()), "llm"

    def _rule_acts(self, acts: list[Act]) -> tuple[tuple[DialogueAct, ...], str]:
        return iard_acts(acts), "rule"

    def _title_ids(self, title: str) -> list[str]:
        return [i for ref in self.rule.reader.titles(title) for i in ref.item_ids]

    def _item_ids(self, agent_text: str, acts: list[Act]) -> list[str]:
        """Items a reply without a title is about: those the agent named, or judged ones."""
        named = self._title_ids(agent_text)
        judged = [a.item_id for a in acts if a.item_id]
        return list(dict.fromkeys(named + judged))

    def _say(self, text: str) -> str:
        self.history.append({"role": "assistant", "content": text})
        return text

    def _titles(self, agent_text: str, acts: list[Act]) -> tuple[str, ...]:
        """Titles the user may repeat without leaking: those named by the agent or judged."""
        named = [ref.title for ref in self.rule.reader.titles(agent_text)] if agent_text else []
        judged = [it.title for a in acts if a.item_id and (it := self._catalog.get(a.item_id))]
        return tuple(dict.fromkeys(named + judged))

    def _note(self, act: Act, titles: tuple[str, ...]) -> str | None:
        hinted = act.kind in (ActKind.REJECT, ActKind.COMMIT_WRONG) and act.options
        note = note_for(act, self._catalog, self._rng.choice(act.options) if hinted else None)
        # belt and braces: a note that would hand the model a hidden value is dropped
        return note if note and not self.guard.find(note, ignore=titles) else None

    def _notes(self, acts: list[Act], titles: tuple[str, ...]) -> list[str]:
        return [n for a in acts if (n := self._note(a, titles))]

    def _decide_stop(self) -> bool:
        raw = self.client.complete(decide_messages(self.task, self.guard, self.history), "decide")
        decision = parse_decision(raw)
        if decision is None:
            self.unparsed_decisions += 1
        return decision == "stop"

    def _generate(self, purpose: str, titles: tuple[str, ...] = ()) -> tuple[str | None, bool]:
        """A clean reply to the history and whether it asks to leave; (None, wants_out)
        when every attempt leaked or was empty."""
        messages = list(self.history)
        wants_out = False
        for attempt in range(self.settings.max_regenerations + 1):
            raw = self.client.complete(
                messages, purpose if not attempt else f"{purpose}:regen{attempt}"
            )
            body, self._acts_text = split_acts_line(raw)
            text, wants_out = parse_reply(body)
            leaks = self.guard.find(text, ignore=titles)
            if text and not leaks:
                return text, wants_out
            if leaks:
                self.leaks += 1
            else:
                self.empty_replies += 1
            if attempt < self.settings.max_regenerations:
                self.regenerations += 1
                messages = [
                    *self.history,
                    {"role": "assistant", "content": raw},
                    {"role": "user", "content": regeneration_request(leaks)},
                ]
        self.fallbacks += 1
        return None, wants_out


def make_llm_user(
    task: RecommendationTask,
    catalog: Catalog,
    seed: int,
    settings: LLMUserSettings,
    *,
    reader: MessageReader | None = None,
) -> LLMUser:
    """The LLM user for one episode. Pass a shared `reader` when making many (see
    `RuleBasedUser`)."""
    return LLMUser(task, catalog, seed, settings, reader=reader)


def llm_users(
    catalog: Catalog, settings: LLMUserSettings
) -> Callable[[RecommendationTask, Catalog, int], LLMUser]:
    """A simulator factory for the server: one title index serves every episode."""
    reader = MessageReader(catalog.items)

    def make(task: RecommendationTask, catalog: Catalog, seed: int) -> LLMUser:
        return LLMUser(task, catalog, seed, settings, reader=reader)

    return make
