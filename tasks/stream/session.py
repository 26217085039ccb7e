"""The rules of a stream, as a state machine with no I/O.

A stream starts in episode 1. In each episode the agent may ask questions (each costs
one of the task's question budget; at the budget only a recommendation is accepted)
and must recommend exactly one item of that episode's choice set; the answer carries
the feedback. `next_episode` then opens the next one; after the last recommendation the
stream is complete. The run's `StreamProtocol` (protocol.py) sets the rest: whether the
feedback is the task's, withheld or scrambled, what an id outside the choice set does
(BIEL's rules: it counts as a question) and the order the episodes are played in.
Planning runs add hidden interim picks (`interim`), scored but never answered; any pick
may carry the agent's stated `Confidence`.

Every refusal is a `StreamRuleError` whose message says what was wrong and what to do
instead. The server wraps this in its episode log; the evaluator replays the same rules
from that log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from taurec.tasks.errors import short_repr
from taurec.tasks.stream.customer import Customer, CustomerContext, RuleCustomer
from taurec.tasks.stream.feedback import feedback_text
from taurec.tasks.stream.protocol import (
    CustomerKnows,
    FeedbackMode,
    StreamProtocol,
    StreamRules,
    episode_order,
    scrambled,
)
from taurec.tasks.stream.results import (
    AnswerResult,
    Confidence,
    EpisodeView,
    InterimResult,
    RecommendationResult,
)
from taurec.tasks.stream.task import FeedbackKind, StreamEpisodeSpec, StreamTask


class StreamRuleError(ValueError):
    """A call the stream's rules do not allow now (the message says what to do)."""


@dataclass(frozen=True)
class Pick:
    """A pick the log records: interim (planning) or the episode's recommendation."""

    item_id: str
    questions: int  # questions asked in the episode before it
    confidence: Confidence | None
    final: bool


@dataclass
class StreamSession:
    """One stream in progress. `seed` makes the customer's words, the episode order
    and scrambled feedback deterministic."""

    task: StreamTask
    seed: int
    customer: Customer = field(default_factory=RuleCustomer)
    protocol: StreamProtocol = field(default_factory=StreamProtocol)
    index: int = 0  # 0-based current position in the played order
    questions: int = 0
    chosen: list[str] = field(default_factory=list)  # one per finished episode
    dialogue: list[tuple[str, str]] = field(default_factory=list)  # this episode's Q/A
    asked: list[int] = field(default_factory=list)  # questions of each finished episode
    picks: list[list[Pick]] = field(default_factory=list)  # per played episode

    def __post_init__(self) -> None:
        n = len(self.task.episodes)
        self.order = episode_order(n, self.seed, self.protocol.shuffle_order)
        self.picks = [[] for _ in range(n)]

    @property
    def spec(self) -> StreamEpisodeSpec:
        return self.played(self.index)

    def played(self, position: int) -> StreamEpisodeSpec:
        """The task's episode played at `position` (0-based) of this stream."""
        return self.task.episodes[self.order[position]]

    @property
    def recommended(self) -> bool:
        return len(self.chosen) > self.index

    @property
    def complete(self) -> bool:
        return len(self.chosen) == len(self.task.episodes)

    def _customer_label(self) -> str:
        played = (self.played(k).persona_id for k in range(len(self.order)))
        order = list(dict.fromkeys(played))
        return f"customer {order.index(self.spec.persona_id) + 1}"

    @property
    def feedback_kind(self) -> str:
        """What the agent is told it will hear: the task's kind, also in a control run (a
        control must not announce itself). Logs of labelled controls (written before)
        said `none` for withheld feedback."""
        if self.protocol.labelled_control and self.protocol.feedback is FeedbackMode.NONE:
            return FeedbackKind.NONE.value
        return self.task.feedback.value

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
            feedback_kind=self.feedback_kind,
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

    def recommend(
        self, item_id: str, confidence: Confidence | dict[str, Any] | None = None
    ) -> RecommendationResult:
        self._check_open()
        spec = self.spec
        if item_id not in spec.utilities:
            if self.protocol.rules is StreamRules.TAUREC:
                raise StreamRuleError(self._outsider(item_id))
            if self.questions < self.task.budget:  # BIEL: it counts as a question
                self.questions += 1
                left = self.task.budget - self.questions
                return RecommendationResult(
                    episode=self.index + 1,
                    item_id=item_id,
                    feedback=None,
                    stream_complete=False,
                    episode_ended=False,
                    end_reason=None,
                    counted_as_question=True,
                    questions_left=left,
                    note=f"{self._outsider(item_id)}; under BIEL's rules it counts as a "
                    f"question ({left} left)",
                )
            forced = spec.item_ids[0]  # BIEL's forced recommendation falls back to the first
            note = (
                f"{self._outsider(item_id)}; with no question left, the set's first item "
                f"{forced!r} is recommended (BIEL's rules)"
            )
            return self._recommended(forced, None, note)  # stated for another id
        return self._recommended(item_id, _confidence(confidence), None)

    def _outsider(self, item_id: str) -> str:
        spec = self.spec
        return (
            f"item {short_repr(item_id)} is not in episode {self.index + 1}'s choice set; expected "
            f"one of its {len(spec.item_ids)} item ids (e.g. {spec.item_ids[0]!r})"
        )

    def _recommended(
        self, item_id: str, confidence: Confidence | None, note: str | None
    ) -> RecommendationResult:
        spec = self.spec
        self.picks[self.index].append(Pick(item_id, self.questions, confidence, final=True))
        self.chosen.append(item_id)
        self.asked.append(self.questions)
        seed = hash_seed(self.seed, self.index)
        return RecommendationResult(
            episode=self.index + 1,
            item_id=item_id,
            feedback=self._feedback(spec, item_id, seed),
            stream_complete=self.complete,
            episode_ended=self.complete,
            end_reason="recommended" if self.complete else None,
            note=note,
        )

    def _feedback(self, spec: StreamEpisodeSpec, item_id: str, seed: int) -> str | None:
        """The feedback on `item_id`: the task's kind, withheld, or scrambled: the
        feedback on the item a seeded permutation of the set maps it to (its utility, and
        for persona feedback a reason drawn from it, told of the chosen item's kind:
        feedback_text's `about`), so it keeps its form and says nothing of the choice.
        Labelled controls (logs written before) gave scrambled persona feedback no reason."""
        mode = self.protocol.feedback
        if mode is FeedbackMode.NONE:
            return None
        prefs = self.task.persona_index[spec.persona_id].preferences
        item = self.task.item_index[item_id]
        judged = item
        if mode is FeedbackMode.SHUFFLED:
            judged = self.task.item_index[scrambled(spec.item_ids, seed)[item_id]]
            if self.protocol.labelled_control:
                prefs = None
        chosen = spec.utilities[judged.id]
        if self.task.feedback is FeedbackKind.PERSONA:  # the customer's own words
            return self.customer.react(
                self._context(), chosen, spec.best, item, prefs, seed, judged=judged
            )
        return feedback_text(self.task.feedback, chosen, spec.best, judged, prefs, seed, about=item)

    def interim(
        self, item_id: str, confidence: Confidence | dict[str, Any] | None = None
    ) -> InterimResult:
        """A hidden pick for planning runs: recorded (and scored), never answered."""
        self._check_open()
        if item_id not in self.spec.utilities:
            raise StreamRuleError(self._outsider(item_id))
        self.picks[self.index].append(
            Pick(item_id, self.questions, _confidence(confidence), final=False)
        )
        return InterimResult(
            episode=self.index + 1, item_id=item_id, questions_asked=self.questions
        )

    def _context(self) -> CustomerContext:
        spec = self.spec
        return CustomerContext(
            persona=self.task.persona_index[spec.persona_id],
            category=spec.category_name,
            items=[self.task.item_index[i] for i in spec.item_ids],
            utilities=spec.utilities,
            dialogue=tuple(self.dialogue),
            knows_items=self.protocol.customer_knows is CustomerKnows.ITEMS,
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


def _confidence(value: Confidence | dict[str, Any] | None) -> Confidence | None:
    if value is None or isinstance(value, Confidence):
        return value
    return Confidence.model_validate(value)


Action = Literal["ask_question", "recommend_item", "interim_recommendation", "next_episode"]
ACTIONS: dict[str, Any] = {
    "ask_question": lambda s, a: s.ask(a["question"]),
    "recommend_item": lambda s, a: s.recommend(a["item_id"], a.get("confidence")),
    "interim_recommendation": lambda s, a: s.interim(a["item_id"], a.get("confidence")),
    "next_episode": lambda s, a: s.next_episode(),
}
__all__ = [
    "ACTIONS",
    "AnswerResult",
    "Confidence",
    "EpisodeView",
    "InterimResult",
    "Pick",
    "RecommendationResult",
    "StreamRuleError",
    "StreamSession",
]
