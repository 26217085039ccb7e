"""Stream tasks (`kind: "stream"`, BIEL): episodes in order, with feedback after each.

A stream is E episodes (default 10). Each episode puts one customer (a persona) before
one choice set (up to 30 items of one category); the agent asks questions within a
budget and recommends one item; the server answers with feedback. Three settings:

- variable_category: the same customer across categories (question budget 10);
- variable_persona: the same category (and choice set) across customers (budget 20);
- variable_settings: both change every episode (budget 20).

The task holds everything scoring needs: the personas, the items shown, each episode's
choice set and its customer's utility (0-100) for every item in it. Utilities come
from the personas' hidden preference models (recomputable, checked on load) or from an
LLM scorer (`utility_source: "llm"`, cached data). The task's sha256 covers them all.
In a suite folder, the items and personas may sit once in a shared pool.json
(see pool.py).
"""

from __future__ import annotations

from enum import StrEnum
from functools import cached_property
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.choice_sets import CHOICE_SET_SIZE, MIN_CATEGORY_ITEMS
from taurec.catalog.personas import Persona
from taurec.catalog.preferences import utility
from taurec.tasks.hashed import HashedTask
from taurec.tasks.kinds import task_kind
from taurec.tasks.stream.pool import STREAM_POOL

STREAM_FORMAT_VERSION: Final = 1
DEFAULT_EPISODES: Final = 10
#: BIEL skips a category whose best utility is below this.
MIN_BEST_UTILITY: Final = 60.0


class StreamSetting(StrEnum):
    VARIABLE_CATEGORY = "variable_category"  # one customer, a new category each episode
    VARIABLE_PERSONA = "variable_persona"  # one category, a new customer each episode
    VARIABLE_SETTINGS = "variable_settings"  # both change each episode


class FeedbackKind(StrEnum):
    REGRET = "regret"  # "Recommendation feedback: Chosen score: x, Best possible: y, Regret: r"
    STARS = "stars"  # "Recommendation rating: n out of 5 stars (best possible: 5 stars)"
    PERSONA = "persona"  # the customer's words; never a number
    NONE = "none"


class UtilitySource(StrEnum):
    PREFERENCE_MODEL = "preference_model"  # computed from Persona.preferences
    LLM = "llm"  # scored by language models (see catalog/llm_utilities.py)


#: BIEL's question budgets: 10 with one customer, 20 otherwise.
DEFAULT_QUESTION_BUDGET: Final = {
    StreamSetting.VARIABLE_CATEGORY: 10,
    StreamSetting.VARIABLE_PERSONA: 20,
    StreamSetting.VARIABLE_SETTINGS: 20,
}


class StreamEpisodeSpec(BaseModel):
    """One episode of a stream: who shops, among what, and what each item is worth."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    persona_id: str = Field(min_length=1)
    category_id: str = Field(min_length=1)
    category_name: str = Field(min_length=1, description="What the customer is shopping for.")
    item_ids: list[str] = Field(
        min_length=1, max_length=CHOICE_SET_SIZE, description="The choice set, in shown order."
    )
    utilities: dict[str, float] = Field(
        description="The customer's utility (0-100) for every item of the choice set."
    )

    @model_validator(mode="after")
    def _sound(self) -> StreamEpisodeSpec:
        n = len(set(self.item_ids))
        if n != len(self.item_ids):
            raise ValueError("item_ids without duplicates")
        if n < MIN_CATEGORY_ITEMS:
            raise ValueError(
                f"category {self.category_id!r} gives a choice set of {n} items; expected "
                f"at least {MIN_CATEGORY_ITEMS}"
            )
        missing = [i for i in self.item_ids if i not in self.utilities]
        if missing:
            raise ValueError(
                f"persona {self.persona_id!r} has no utility for item {missing[0]!r} "
                f"({len(missing)} of {n} missing); expected a 0-100 utility for every item "
                "of the choice set"
            )
        bad = [(i, u) for i, u in self.utilities.items() if not 0 <= u <= 100]
        if bad:
            raise ValueError(f"utility of {bad[0][0]!r} is {bad[0][1]}; expected 0-100")
        return self

    @property
    def best(self) -> float:
        return max(self.utilities[i] for i in self.item_ids)

    def ranked(self) -> list[str]:
        """The choice set from best to worst (ties in shown order)."""
        return sorted(self.item_ids, key=lambda i: -self.utilities[i])


def stream_checks(task: StreamTask) -> list[tuple[str, str]]:
    """Problems past the schema: episodes whose best utility is below 60 (BIEL skips
    such categories), and a setting whose varying part does not vary."""
    out = []
    for n, ep in enumerate(task.episodes):
        if ep.best < MIN_BEST_UTILITY:
            out.append(
                (
                    f"episodes[{n}].utilities",
                    f"best utility is {ep.best:g}; expected at least {MIN_BEST_UTILITY:g}",
                )
            )
    if len(task.episodes) > 1:
        if task.setting is StreamSetting.VARIABLE_CATEGORY and len(task.category_ids) == 1:
            out.append(("episodes", "a variable_category stream with one category throughout"))
        if task.setting is StreamSetting.VARIABLE_PERSONA and len(task.persona_ids) == 1:
            out.append(("episodes", "a variable_persona stream with one persona throughout"))
    return out


@task_kind(
    "stream",
    description="BIEL: a stream of episodes with feedback; does the agent learn in context?",
    checks=lambda task: stream_checks(task),
    suite_data=STREAM_POOL,
)
class StreamTask(HashedTask):
    """One BIEL stream: E episodes in one setting, one feedback kind, one question budget."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format_version: Literal[1] = STREAM_FORMAT_VERSION
    kind: Literal["stream"] = "stream"
    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    setting: StreamSetting
    feedback: FeedbackKind = FeedbackKind.STARS
    question_budget: int | None = Field(
        default=None, ge=0, le=100, description="Questions per episode; default by setting."
    )
    utility_source: UtilitySource = UtilitySource.PREFERENCE_MODEL
    personas: list[Persona] = Field(min_length=1)
    items: list[ChoiceItem] = Field(min_length=1, description="Every item the stream shows.")
    episodes: list[StreamEpisodeSpec] = Field(min_length=1, max_length=100)

    @model_validator(mode="after")
    def _consistent(self) -> StreamTask:
        personas = {p.id: p for p in self.personas}
        if len(personas) != len(self.personas):
            raise ValueError("persona ids without duplicates")
        items = self.item_index
        if len(items) != len(self.items):
            raise ValueError("item ids without duplicates")
        for n, ep in enumerate(self.episodes):
            if ep.persona_id not in personas:
                raise ValueError(f"episodes[{n}] names persona {ep.persona_id!r}, not in personas")
            unknown = next((i for i in ep.item_ids if i not in items), None)
            if unknown is not None:
                raise ValueError(f"episodes[{n}] shows item {unknown!r}, not in items")
        if self.setting is StreamSetting.VARIABLE_CATEGORY and len(self.persona_ids) > 1:
            raise ValueError("a variable_category stream with one persona in every episode")
        if self.setting is StreamSetting.VARIABLE_PERSONA and len(self.category_ids) > 1:
            raise ValueError("a variable_persona stream with one category in every episode")
        if self.utility_source is UtilitySource.PREFERENCE_MODEL:
            self._utilities_match(personas)
        return self

    def _utilities_match(self, personas: dict[str, Persona]) -> None:
        items = self.item_index
        for n, ep in enumerate(self.episodes):
            model = personas[ep.persona_id].preferences
            if model is None:
                raise ValueError(
                    f"persona {ep.persona_id!r} has no preferences; expected a preference "
                    "model when utility_source is preference_model"
                )
            for item_id in ep.item_ids:
                want = utility(model, items[item_id])
                if ep.utilities[item_id] != want:
                    raise ValueError(
                        f"episodes[{n}] stores utility {ep.utilities[item_id]} for "
                        f"{item_id!r}; its persona's preference model gives {want}"
                    )

    @property
    def budget(self) -> int:
        """Questions allowed per episode."""
        if self.question_budget is not None:
            return self.question_budget
        return DEFAULT_QUESTION_BUDGET[self.setting]

    @cached_property
    def item_index(self) -> dict[str, ChoiceItem]:
        return {i.id: i for i in self.items}

    @cached_property
    def persona_index(self) -> dict[str, Persona]:
        return {p.id: p for p in self.personas}

    @property
    def persona_ids(self) -> set[str]:
        return {e.persona_id for e in self.episodes}

    @property
    def category_ids(self) -> set[str]:
        return {e.category_id for e in self.episodes}
