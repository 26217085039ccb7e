"""The "ppr" task kind (AgenticRec's pairwise preference reasoning): two items, one the
user really took next (the positive) and one a ranking rollout placed above it (a hard
negative); the agent says which item the user is MORE (or LESS) likely to buy next.

A task holds everything its episode shows (history and item titles), so it needs no
interaction data. `answer` is the letter of the positive in a MORE task and of the
negative in a LESS task; which letter that is was drawn at random when the pair was
mined (taurec.evaluator.ranking.export), so a constant answer scores 0.5 in expectation.

The episode (`PairEpisode`, shared by the MCP server and the Python environment) ends on
the first submitted answer: reward 1 when it is the task's letter, 0 otherwise. An answer
other than "A" or "B" (surrounding blanks and case ignored) is invalid: it ends the
episode with reward 0 and a reply saying so; the correct letter is never shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from taurec.tasks.hashed import HashedTask
from taurec.tasks.kinds import task_kind
from taurec.tasks.ranking.task import MAX_HISTORY

SUBMIT: Final = "submit_answer"
LETTERS: Final = ("A", "B")

PAIR_PROMPT = (
    "Given the user's interaction history below and two candidate items, decide which item "
    "the user is {direction} LIKELY to buy next.\n\n"
    "User history (oldest first):\n{history}\n\n"
    "Item A: {a}\nItem B: {b}\n\n"
    "Answer with submit_answer and the letter, or end your reply with \\boxed{{A}} or "
    "\\boxed{{B}}."
)


class PairItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, description="The item id in the interaction data.")
    title: str = Field(min_length=1, description="The title shown to the agent.")


def _problems(task: PairTask) -> list[tuple[str, str]]:
    ids = (task.item_a.id, task.item_b.id)
    if ids[0] == ids[1]:
        return [("item_b", "is the same item as item_a; expected two distinct items")]
    if task.positive not in ids:
        return [("positive", f"{task.positive!r} is neither item_a nor item_b")]
    if task.answer != task.expected_answer():
        return [("answer", f"expected {task.expected_answer()!r} for a {task.direction} task")]
    return []


@task_kind(
    "ppr",
    description="AgenticRec PPR: which of two items the user is MORE / LESS likely to buy next",
    checks=lambda task: _problems(task),
)
class PairTask(HashedTask):
    """One pairwise preference task, mined from a ranking rollout."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format_version: Literal[1] = 1
    kind: Literal["ppr"] = "ppr"
    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    user_id: str = Field(min_length=1, description="The user in the interaction data.")
    target_time: int = Field(description="Unix seconds of the positive.")
    history: list[str] = Field(
        max_length=MAX_HISTORY, description="Titles of the user's last items, oldest first."
    )
    direction: Literal["MORE", "LESS"] = Field(
        description="MORE: pick the item the user takes next; LESS: pick the other one."
    )
    item_a: PairItem
    item_b: PairItem
    positive: str = Field(min_length=1, description="The id of the item taken next.")
    answer: Literal["A", "B"] = Field(description="The correct letter (never shown).")
    source_task_id: str = Field(min_length=1, description="The ranking task it was mined from.")
    source_label: str = Field(default="", description="The agent label of the rollout.")
    source_trial: int = Field(default=0, ge=0, description="The trial of the rollout.")
    source_rank: int | None = Field(
        default=None, description="The positive's rank in the rollout (None: not listed)."
    )

    def expected_answer(self) -> str:
        positive_letter = "A" if self.item_a.id == self.positive else "B"
        other = "B" if positive_letter == "A" else "A"
        return positive_letter if self.direction == "MORE" else other

    @property
    def negative(self) -> str:
        return self.item_b.id if self.item_a.id == self.positive else self.item_a.id


def pair_prompt(task: PairTask) -> str:
    """The episode's opening: AgenticRec's PPR prompt with this task's data."""
    history = "\n".join(f"{n}. {title}" for n, title in enumerate(task.history, 1))
    return PAIR_PROMPT.format(
        direction=task.direction,
        history=history or "(none)",
        a=task.item_a.title,
        b=task.item_b.title,
    )


@dataclass(frozen=True)
class PairOutcome:
    valid: bool
    correct: bool
    answer: str | None  # the normalised letter, None when invalid
    problem: str | None = None

    @property
    def reward(self) -> float:
        return 1.0 if self.correct else 0.0


def score_answer(task: PairTask, answer: Any) -> PairOutcome:
    """Pure: the outcome of answering `answer` (None: no answer was submitted)."""
    if answer is None:
        return PairOutcome(False, False, None, "no answer was submitted")
    letter = answer.strip().upper() if isinstance(answer, str) else None
    if letter not in LETTERS:
        shown = repr(answer)[:60]
        return PairOutcome(False, False, None, f"answer: {shown} is not 'A' or 'B'")
    return PairOutcome(True, letter == task.answer, letter)


@dataclass
class PairEpisode:
    """One PPR episode as a state machine; no I/O (callers log what `submit` returns)."""

    task: PairTask
    outcome: PairOutcome | None = None

    @property
    def ended(self) -> bool:
        return self.outcome is not None

    def opening(self) -> str:
        return pair_prompt(self.task)

    def submit(self, answer: Any) -> tuple[str, PairOutcome]:
        """The reply to an answer and its outcome; the episode is over either way."""
        if self.outcome is not None:
            raise ValueError("the episode has ended; start a new one")
        self.outcome = score_answer(self.task, answer)
        if self.outcome.valid:
            text = f"Answer {self.outcome.answer} received. The episode is over."
        else:
            text = f"Invalid answer ({self.outcome.problem}). The episode is over (reward 0)."
        return text, self.outcome
