"""The LLM contestant on streams, following BIEL's protocol (pipeline/core/unified_agent.py
and experiments/unified_experiment.py): BIEL's prompts (prompts.py), read as BIEL reads
them (replies.py), at BIEL's temperatures unless the user sets one.

What it carries across episodes (`context`): `raw` (default; each earlier episode's
questions and answers, the title recommended and the feedback), `summary` (after each
episode the model summarises it with BIEL's summary prompt; later prompts carry the
summaries, not the record) or `none`. In-context learning, nothing else.

An ordinary episode: the decision prompt until the model recommends or the question
budget is spent, then BIEL's forced recommendation. A recommended id is sent as written:
under BIEL's rules the server counts one outside the choice set as a question. A reply
that is neither a question nor a recommendation, and a forced reply that names no item
of the set, give the set's first item.

Planning runs (`planning` no_strat, greedy or pomdp) make episode 1 and every
`planning_interval`-th episode a planning episode (BIEL's `_is_planning_episode`): the
agent asks every question of the budget with BIEL's question prompt (greedy and pomdp
add BIEL's strategy section) and after each one makes a hidden interim pick with BIEL's
confidence prompt, sent as an interim recommendation with the stated confidence; the
final pick uses the same prompt. With `confidence`, every final recommendation of an
ordinary episode is made with the confidence prompt too (once the model chooses to
recommend, or at the budget) and carries the confidence stated.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final

from taurec.clients.agents.base import Episode
from taurec.clients.agents.registry import AgentUnavailable
from taurec.clients.agents.stream.llm_client import Completion, LLMClient
from taurec.clients.agents.stream.play import Action, Dialogue
from taurec.clients.agents.stream.prompts import (
    TEMPERATURE,
    EpisodeRecord,
    confidence_prompt,
    customer_number,
    decision_prompt,
    earlier_episodes,
    forced_prompt,
    question_prompt,
    summary_prompt,
)
from taurec.clients.agents.stream.replies import (
    as_question,
    read_confidence,
    read_decision,
    read_forced,
)

CONTEXTS: Final = ("raw", "summary", "none")
PLANNING: Final = ("none", "no_strat", "greedy", "pomdp")
#: BIEL's planning_interval default.
PLANNING_INTERVAL: Final = 5


@dataclass(frozen=True)
class StreamLLMOptions:
    """The LLM stream agent's protocol choices (`taurec run --context/--planning/...`)."""

    context: str = "raw"
    planning: str = "none"
    planning_interval: int = PLANNING_INTERVAL
    confidence: bool = False

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> StreamLLMOptions:
        """From AgentSettings.options; AgentUnavailable naming a bad or misplaced value."""
        context = str(options.get("context") or "raw")
        planning = str(options.get("planning") or "none")
        interval = options.get("planning_interval")
        if context not in CONTEXTS:
            raise AgentUnavailable(f"--context {context}: expected one of {', '.join(CONTEXTS)}")
        if planning not in PLANNING:
            raise AgentUnavailable(f"--planning {planning}: expected one of {', '.join(PLANNING)}")
        if interval is not None and planning == "none":
            raise AgentUnavailable("--planning-interval applies with --planning (not none)")
        if interval is not None and (not isinstance(interval, int) or interval < 1):
            raise AgentUnavailable(f"--planning-interval {interval}: expected an integer >= 1")
        confidence = bool(options.get("confidence"))
        return cls(context, planning, interval or PLANNING_INTERVAL, confidence)

    def plans(self, episode: int) -> bool:
        """Whether the stream's `episode` (1-based) is a planning episode."""
        if self.planning == "none":
            return False
        return episode == 1 or episode % self.planning_interval == 0


class LLMStreamPolicy:
    """BIEL's LLM agent over one stream (a fresh one per stream)."""

    def __init__(
        self,
        model: str,
        episode: Episode | None = None,
        *,
        label: str | None = None,
        temperature: float | None = None,
        reasoning_effort: str | None = None,
        options: StreamLLMOptions | None = None,
        completion: Completion | None = None,
        max_retries: int = 4,
    ) -> None:
        self.label = label or model
        self.options = options or StreamLLMOptions()
        self.client = LLMClient(
            model,
            episode,
            temperature=temperature,
            reasoning_effort=reasoning_effort,
            completion=completion,
            max_retries=max_retries,
        )
        self.records: list[EpisodeRecord] = []
        self._setting = ""
        self._dialogue: Dialogue = []
        self._episode = 0  # the episode being played
        self._interims = 0  # interim picks made in it

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        if int(view["episode"]) != self._episode:
            self._episode, self._interims = int(view["episode"]), 0
        self._setting = str(view.get("setting", ""))
        self._dialogue = list(dialogue)
        await self._summarise()
        ids = [str(i["id"]) for i in view["items"]]
        left = int(view.get("questions_left", 0))
        earlier = earlier_episodes(self.options.context, self._setting, self.records)
        if self.options.plans(self._episode):
            if len(dialogue) > self._interims:  # a question answered: a hidden pick
                self._interims = len(dialogue)
                return "interim", *await self._pick(view, dialogue, earlier, ids[0])
            if left > 0:
                prompt = question_prompt(view, dialogue, earlier, self.options.planning)
                return "ask", as_question(await self.client.reply(prompt, TEMPERATURE["question"]))
            return "recommend", *await self._pick(view, dialogue, earlier, ids[0])
        if left <= 0:
            if self.options.confidence:
                return "recommend", *await self._pick(view, dialogue, earlier, ids[0])
            reply = await self.client.reply(
                forced_prompt(view, dialogue, earlier), TEMPERATURE["forced"]
            )
            return "recommend", read_forced(reply, ids)
        reply = await self.client.reply(
            decision_prompt(view, dialogue, earlier), TEMPERATURE["decision"]
        )
        decision = read_decision(reply, ids)
        if decision is None:
            return "recommend", ids[0]
        if decision[0] == "recommend" and decision[1] in ids and self.options.confidence:
            return "recommend", *await self._pick(view, dialogue, earlier, decision[1])
        return decision

    async def _pick(
        self, view: dict[str, Any], dialogue: Dialogue, earlier: str, fallback: str
    ) -> tuple[str, dict[str, float]]:
        """An item of the set with the confidence stated, from the confidence prompt;
        `fallback` when the reply names none of the set."""
        ids = [str(i["id"]) for i in view["items"]]
        reply = await self.client.reply(
            confidence_prompt(view, dialogue, earlier), TEMPERATURE["confidence"]
        )
        picked, stated = read_confidence(reply, ids)
        return picked or fallback, stated

    async def _summarise(self) -> None:
        """`summary` mode: the model's summary of each finished episode, written before
        the next episode's first prompt (observe cannot call the model)."""
        if self.options.context != "summary":
            return
        for n, record in enumerate(self.records):
            if record.summary is None:
                prompt = summary_prompt(record, self._setting, self.records)
                summary = (await self.client.reply(prompt, TEMPERATURE["summary"])).strip()
                self.records[n] = _with_summary(record, summary)

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        title = next((str(i["title"]) for i in view["items"] if str(i["id"]) == item_id), item_id)
        self.records.append(
            EpisodeRecord(
                episode=int(view["episode"]),
                customer=customer_number(view),
                category=str(view["category"]),
                dialogue=tuple(self._dialogue),
                item_id=item_id,
                title=title,
                feedback=feedback,
            )
        )


def _with_summary(record: EpisodeRecord, summary: str) -> EpisodeRecord:
    """`record` with its summary; an empty one gets the line BIEL falls back on."""
    fallback = (
        f"Episode {record.episode} completed in {record.category} category for "
        f"Customer {record.customer}."
    )
    return replace(record, summary=summary or fallback)
