"""UserSimCRS's LLM users: single-prompt (`--simulator llm-sp`) and dual-prompt
(`--simulator llm-dp`). The LLM holds the information need and decides everything itself:
what to ask, which title to take or turn down, and when to leave.

- **single-prompt**: each turn one zero-shot prompt (the task, the persona, the
  REQUIREMENTS: the stated constraints and the requests, then the conversation as
  `USER:` / `ASSISTANT:` lines) asks for the user's next message. The model ends the
  dialogue by writing `\\end` (the requirements are met) or `\\giveup` (the assistant is
  not helping). Ending on a title it accepts, the user stays for the agent's commit (a
  taurec episode ends on a commit) and answers nothing after it.
- **dual-prompt**: before each reply a separate prompt asks whether to go on (`TRUE`) or
  stop because the conversation is stuck (`FALSE`); exactly `false` ends the dialogue,
  anything else goes on to the single-prompt reply.

The task's hidden constraints are in the prompt as requirements the user never says
(turning down a title that breaks one without saying why), since a τ-Rec task defines
them so; the simulator-fault audit checks what the model did. The user's dialogue acts
are read off each reply by the LLM act classifier (acts_by "llm-classifier"), as
UserSimCRS annotates its LLM users' dialogues with its LLM NLU. The prompts are this
project's own, in the shape of UserSimCRS's. UserSimCRS's stop prompt sees only the
assistant's turns (a defect); here it sees both sides.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.base import UserReply
from taurec.server.recommendation.simulator.information_need import InformationNeed
from taurec.server.recommendation.simulator.item_facts import REQUEST_NAMES
from taurec.server.recommendation.simulator.llm_acts import LLMActReader
from taurec.server.recommendation.simulator.llm_client import LLMClient, LLMUserSettings
from taurec.server.recommendation.simulator.nlu import MessageReader
from taurec.server.recommendation.simulator.phrasing import describe
from taurec.tasks.recommendation.constraint import Reveal
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.dialogue_acts import DialogueAct

END: Final = "\\end"
GIVE_UP: Final = "\\giveup"
_MARKERS = re.compile(r"\\(end|giveup)\b", re.I)
_GONE = "(The user has left the conversation.)"
#: UserSimCRS runs its LLM users at this temperature.
TEMPERATURE: Final = 0.7


def _requirements(task: RecommendationTask, need: InformationNeed) -> str:
    stated = [describe(c) for c in task.constraints if c.reveal is not Reveal.HIDDEN]
    hidden = [describe(c) for c in task.constraints if c.reveal is Reveal.HIDDEN]
    wants = "; ".join(stated) if stated else "nothing in particular"
    text = f"REQUIREMENTS: You are looking for a movie with the following characteristics: {wants}."
    if hidden:
        text += (
            " You also have requirements you never say out loud: "
            + "; ".join(hidden)
            + ". Turn down a movie that breaks one of them, without saying why."
        )
    if need.requests:
        learn = ", ".join(REQUEST_NAMES[s] for s in need.requests)
        text += f" Once you find a suitable movie, make sure to learn its {learn}."
    return text


def generation_prompt(task: RecommendationTask, need: InformationNeed, history: list[str]) -> str:
    """The single prompt of one turn: what to do, who to be, what is wanted, what was said."""
    return "\n".join(
        [
            "You are a USER talking to an ASSISTANT that recommends movies. Write the "
            "USER's next message. Over the conversation, meet all of the REQUIREMENTS "
            f"below. When they are met, end your message with {END}; if the ASSISTANT is "
            f"not helpful, end it with {GIVE_UP}.",
            f"Adapt your responses to your PERSONA.\nPERSONA: {task.persona}",
            _requirements(task, need),
            "HISTORY:",
            *history,
            "USER:",
        ]
    )


def stop_prompt(task: RecommendationTask, history: list[str]) -> str:
    """The dual prompt's first question: go on (TRUE) or stop (FALSE)?"""
    return "\n".join(
        [
            "You are a USER talking to an ASSISTANT that recommends movies. Read the "
            "conversation and decide whether to continue it. Answer TRUE to continue, or "
            "FALSE if the conversation is stuck in a loop of misunderstandings.",
            f"PERSONA: {task.persona}",
            "HISTORY:",
            *history,
            "CONTINUE: ",
        ]
    )


def read_reply(raw: str) -> tuple[str, str | None]:
    """The message without its `USER:` prefix and end marker, and the marker found."""
    text = raw.strip().removeprefix("USER:").strip()
    found = _MARKERS.search(text)
    marker = None if found is None else f"\\{found.group(1).lower()}"
    return _MARKERS.sub("", text).strip(), marker


class DecidingLLMUser:
    """One episode's LLM user that decides for itself. Meets the `UserSimulator`
    protocol; SimulatorUnavailable when the model cannot be reached."""

    acts_by = "llm-classifier"

    def __init__(
        self,
        task: RecommendationTask,
        catalog: Catalog,
        seed: int,
        settings: LLMUserSettings,
        *,
        reader: MessageReader | None = None,
    ) -> None:
        self.kind = "llm-sp" if settings.variant == "single" else "llm-dp"
        self.task = task
        self.catalog = catalog
        self.settings = settings
        self.need = InformationNeed(task, seed)
        self.client = LLMClient(settings, seed)
        self.reader = reader or MessageReader(catalog.items)
        self.classifier = LLMActReader(self.client, self.reader)
        self.history: list[str] = []
        self.done = False
        self.stopped_by_decision = 0
        self.opening_acts: tuple[DialogueAct, ...] = ()

    # --- the protocol ---------------------------------------------------------------------

    def opening(self) -> str:
        text, _ = self._generate("opening")
        self.opening_acts = tuple(self.classifier.classify(text, "user"))
        return text

    def respond(self, agent_text: str) -> UserReply:
        if self.done:
            return UserReply(_GONE, left=True)
        self.history.append(f"ASSISTANT: {agent_text}")
        named = [i for ref in self.reader.titles(agent_text) for i in ref.item_ids]
        if self.settings.variant == "dual" and not self._goes_on():
            self.stopped_by_decision += 1
            self.done = True
            return UserReply(END, left=True, acts=(DialogueAct(intent="stop"),), acts_by="rule")
        return self._reply("reply", named)

    def react_to_commit(self, item_id: str | None) -> UserReply:
        item = self.catalog.get(item_id or "")
        said = (
            f"My final recommendation is {item.title}."
            if item is not None
            else "I have no recommendation that fits, sorry."
        )
        self.history.append(f"ASSISTANT: {said}")
        reply = self._reply("commit", [item.id] if item is not None else [])
        self.done = True
        return reply

    def stats(self) -> dict[str, Any]:
        return {
            **self.client.stats.as_dict(),
            "stopped_by_decision": self.stopped_by_decision,
            "unparsed_acts": self.classifier.unparsed,
        }

    # --- internals ------------------------------------------------------------------------

    def _reply(self, purpose: str, named: list[str]) -> UserReply:
        text, marker = self._generate(purpose)
        acts = list(self.classifier.classify(text, "user", named))
        accepted = next((a.items[0] for a in acts if a.intent == "accept" and a.items), None)
        # ending on an accepted title leaves the commit to the agent; otherwise the user goes
        left = marker is not None and accepted is None
        if left and not any(a.intent == "stop" for a in acts):
            acts.append(DialogueAct(intent="stop"))
        self.done |= marker is not None
        return UserReply(text, left=left, accepted=accepted, acts=tuple(acts), acts_by=self.acts_by)

    def _goes_on(self) -> bool:
        raw = self.client.complete(
            [{"role": "user", "content": stop_prompt(self.task, self.history)}], "continue"
        )
        return raw.strip().lower() != "false"

    def _generate(self, purpose: str) -> tuple[str, str | None]:
        prompt = generation_prompt(self.task, self.need, self.history)
        raw = self.client.complete([{"role": "user", "content": prompt}], purpose)
        text, marker = read_reply(raw)
        said = text or ("Thanks, that's all." if marker == END else "Never mind.")
        self.history.append(f"USER: {said}")
        return said, marker


def deciding_llm_users(
    catalog: Catalog, settings: LLMUserSettings
) -> Callable[[RecommendationTask, Catalog, int], DecidingLLMUser]:
    """A simulator factory for the server: one title index serves every episode."""
    reader = MessageReader(catalog.items)

    def make(task: RecommendationTask, catalog: Catalog, seed: int) -> DecidingLLMUser:
        return DecidingLLMUser(task, catalog, seed, settings, reader=reader)

    return make
