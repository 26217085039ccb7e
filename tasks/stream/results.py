"""What the stream tools answer, and the confidence an agent may attach to a pick.

The models are the tools' structured results, logged as they are sent; the evaluator
replays the rules and compares. Optional fields are left out when empty, so a result
holds only what happened.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.choice_items import ChoiceItem


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


class Confidence(BaseModel):
    """An agent's stated confidence in a pick (BIEL's calibration fields), all optional."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    favorite: float | None = Field(
        default=None, ge=0, le=1, description="Probability this is the customer's best item."
    )
    top5: float | None = Field(
        default=None, ge=0, le=1, description="Probability it is among their 5 best."
    )
    predicted_regret: float | None = Field(
        default=None, ge=0, le=100, description="The regret you expect (best − this item's score)."
    )
    within_5: float | None = Field(
        default=None, ge=0, le=1, description="Probability the regret is within 5 of yours."
    )
    within_10: float | None = Field(default=None, ge=0, le=1)
    within_20: float | None = Field(default=None, ge=0, le=1)
    within_30: float | None = Field(default=None, ge=0, le=1)


class RecommendationResult(BaseModel):
    episode: int
    item_id: str = Field(description="The item recommended.")
    feedback: str | None = Field(description="The customer's feedback (None: none given).")
    stream_complete: bool = Field(description="True after the last episode's recommendation.")
    episode_ended: bool = Field(description="The stream (the MCP episode) has ended.")
    end_reason: str | None = Field(description="'recommended' once the stream has ended.")
    counted_as_question: bool = Field(
        default=False,
        exclude_if=lambda v: not v,
        description="BIEL's rules: the id is not in the choice set, so nothing was "
        "recommended and one question was used; recommend again.",
    )
    questions_left: int | None = Field(default=None, exclude_if=lambda v: v is None)
    note: str | None = Field(
        default=None, exclude_if=lambda v: v is None, description="What the rules did, in words."
    )


class InterimResult(BaseModel):
    """A hidden interim pick (planning runs): recorded and scored, never answered."""

    episode: int
    item_id: str
    questions_asked: int = Field(description="Questions asked in this episode before it.")
    recorded: bool = True
