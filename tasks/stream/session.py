"""The rules of a stream, as a state machine with no I/O.

A stream starts in episode 1. In each episode the agent may ask questions (each costs
one of the task's question budget; at the budget only a recommendation is accepted)
and must recommend exactly one item of that episode's choice set; the answer carries
the feedback. `next_episode` then opens the next one; after the last recommendation the
stream is complete. Every refusal is a `StreamRuleError` whose message says what was
wrong and what to do instead. The server wraps this in its episode log; the evaluator
replays the same rules from that log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from taurec.catalog.choice_items import ChoiceItem
from taurec.tasks.stream.customer import Customer, CustomerContext, RuleCustomer
from taurec.tasks.stream.feedback import feedback_text
from taurec.tasks.stream.task import FeedbackKind, StreamEpisodeSpec, StreamTask


class StreamRuleError(ValueError):
    """A call the stream's rules do not allow now (the message says what to do)."""


class EpisodeView(BaseModel):
    """What the agent sees of one episode of a stream."""

    episode: int = Field(description="1-based index of this episode in the stream.")
    episodes: int = Field(description="Episodes in the stream.")
    setting: str = Field(description="variable_category, variable_persona or variable_settings.")
    customer: str = Field(description="Which customer this is (the same label = the same one).")
    category: str = Field(description="What the customer is shopping for.")
    question_budget: int
    questions_left: int
    feedback_kind: str = Field(description="What you hear after recommending.")
    items: list[ChoiceItem] = Field(description="The choice set: recommend one of these ids.")


class AnswerResult(BaseModel):
    episode: int
    answer: str = Field(description="The customer's reply.")
    questions_left: int


class RecommendationResult(BaseModel):
    episode: int
    item_id: str
    feedback: str | None = Field(description="The customer's feedback (None: none given).")
    stream_complete: bool = Field(description="True after the last episode's recommendation.")
    episode_ended: bool = Field(description="The stream (the MCP episode) has ended.")
    end_reason: str | None = Field(description="'recommended' once the stream has ended.")


@dataclass
class StreamSession:
    """One stream in progress. `seed` makes the customer's words deterministic."""

    task: StreamTask
    seed: int
    customer: Customer = field(default_factory=RuleCustomer)
    index: int = 0  # 0-based current episode
    questions: int = 0
    chosen: list[str] = field(default_factory=list)  # one per finished episode
    dialogue: list[tuple[str, str]] = field(default_factory=list)  # this episode's Q/A

    @property
    def spec(self) -> StreamEpisodeSpec:
        return self.task.episodes[self.index]

    @property
    def recommended(self) -> bool:
        return len(self.chosen) > self.index

    @property
    def complete(self) -> bool:
        return len(self.chosen) == len(self.task.episodes)

    def _customer_label(self) -> str:
        order = list(dict.fromkeys(e.persona_id for e in self.task.episodes))
        return f"customer {order.index(self.spec.persona_id) + 1}"

    def view(self) -> EpisodeView:
        spec, items = self.spec, self.task.item_index
        return EpisodeView(
            episode=self.index + 1,
            episodes=len(self.task.episodes),
            setting=self.task.setting.value,
            customer=self._customer_label(),
            category=spec.category_name,
            question_budget=self.task.budget,
            questions_left=self.task.budget - self.questions,
            feedback_kind=self.task.feedback.value,
            items=[items[i] for i in spec.item_ids],
        )

    def ask(self, question: str) -> AnswerResult:
        self._check_open()
        if not question.strip():
            raise StreamRuleError("question is empty; expected a question for the customer")
        if self.questions >= self.task.budget:
            raise StreamRuleError(
                f"the question budget of episode {self.index + 1} is spent "
                f"({self.task.budget} of {self.task.budget}); recommend an item now"
            )
        self.questions += 1
        answer = self.customer.answer(self._context(), question)
        self.dialogue.append((question, answer))
        return AnswerResult(
            episode=self.index + 1,
            answer=answer,
            questions_left=self.task.budget - self.questions,
        )

    def recommend(self, item_id: str) -> RecommendationResult:
        self._check_open()
        spec = self.spec
        if item_id not in spec.utilities:
            raise StreamRuleError(
                f"item {item_id!r} is not in episode {self.index + 1}'s choice set; expected "
                f"one of its {len(spec.item_ids)} item ids (e.g. {spec.item_ids[0]!r})"
            )
        self.chosen.append(item_id)
        persona = self.task.persona_index[spec.persona_id]
        chosen, item = spec.utilities[item_id], self.task.item_index[item_id]
        seed = hash_seed(self.seed, self.index)
        if self.task.feedback is FeedbackKind.PERSONA:  # the customer's own words
            text: str | None = self.customer.react(
                self._context(), chosen, spec.best, item, persona.preferences, seed
            )
        else:
            text = feedback_text(
                self.task.feedback, chosen, spec.best, item, persona.preferences, seed
            )
        return RecommendationResult(
            episode=self.index + 1,
            item_id=item_id,
            feedback=text,
            stream_complete=self.complete,
            episode_ended=self.complete,
            end_reason="recommended" if self.complete else None,
        )

    def _context(self) -> CustomerContext:
        spec = self.spec
        return CustomerContext(
            persona=self.task.persona_index[spec.persona_id],
            category=spec.category_name,
            items=[self.task.item_index[i] for i in spec.item_ids],
            utilities=spec.utilities,
            dialogue=tuple(self.dialogue),
        )

    def next_episode(self) -> EpisodeView:
        if self.complete:
            raise StreamRuleError("the stream is complete; there is no next episode")
        if not self.recommended:
            raise StreamRuleError(
                f"episode {self.index + 1} has no recommendation yet; recommend an item first"
            )
        self.index += 1
        self.questions = 0
        self.dialogue = []
        return self.view()

    def _check_open(self) -> None:
        if self.complete:
            raise StreamRuleError(
                "the stream is complete; nothing more can be asked or recommended"
            )
        if self.recommended:
            raise StreamRuleError(
                f"episode {self.index + 1} already has its recommendation; call next_episode"
            )

    def replay(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        """Re-apply accepted calls (name, arguments) in order, e.g. to resume from a log."""
        for name, arguments in calls:
            ACTIONS[name](self, arguments)


def hash_seed(seed: int, index: int) -> int:
    return seed * 1009 + index


Action = Literal["ask_question", "recommend_item", "next_episode"]
ACTIONS: dict[str, Any] = {
    "ask_question": lambda s, a: s.ask(a["question"]),
    "recommend_item": lambda s, a: s.recommend(a["item_id"]),
    "next_episode": lambda s, a: s.next_episode(),
}
