"""The task schema: who the user is, what they need, and which policies apply.

A task file holds one task. `kind` names its family (see taurec.tasks.kinds); this
module is the "recommendation" kind (τ-Rec style: one committed recommendation).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from taurec.catalog.item import AGE_RESTRICTED_RATINGS, ContentRating
from taurec.tasks.hashed import HashedTask
from taurec.tasks.kinds import task_kind
from taurec.tasks.recommendation.constraint import Constraint, Reveal

TASK_FORMAT_VERSION: Final = 1


class PolicyName(StrEnum):
    """The seven τ-Rec policies. Their text is policies/policy.md; checks live in policies/."""

    RECOMMEND_TOOL = "recommend_tool"
    WATCH_HISTORY = "watch_history"
    AVAILABILITY = "availability"
    AGE_RESTRICTED = "age_restricted"
    SPONSORED = "sponsored"
    TRANSPARENCY = "transparency"
    SINGLE_RECOMMENDATION = "single_recommendation"


class Complexity(StrEnum):
    SIMPLE = "simple"  # 1-2 constraints
    MEDIUM = "medium"  # 3-4
    COMPLEX = "complex"  # 5+


class RevealDifficulty(StrEnum):
    VOLUNTEER = "volunteer"  # every constraint stated up front
    MIXED = "mixed"  # some must be asked for or discovered
    HIDDEN = "hidden"  # at least half are never stated


def complexity_of(n_constraints: int) -> Complexity:
    if n_constraints <= 2:
        return Complexity.SIMPLE
    if n_constraints <= 4:
        return Complexity.MEDIUM
    return Complexity.COMPLEX


def reveal_difficulty_of(reveals: list[Reveal]) -> RevealDifficulty:
    """volunteer: all volunteered; hidden: at least half hidden; mixed: otherwise."""
    if all(r is Reveal.VOLUNTEER for r in reveals):
        return RevealDifficulty.VOLUNTEER
    hidden = sum(r is Reveal.HIDDEN for r in reveals)
    return RevealDifficulty.HIDDEN if 2 * hidden >= len(reveals) else RevealDifficulty.MIXED


class WatchEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str = Field(min_length=1, description="Catalog id of a title the user has watched.")
    rating: float | None = Field(default=None, ge=0, le=10, description="The user's 0-10 rating.")


#: Order of maturity ratings for a profile's limit. NR is treated as unrated-adult.
MATURITY_ORDER: tuple[ContentRating, ...] = (
    ContentRating.G,
    ContentRating.PG,
    ContentRating.PG_13,
    ContentRating.R,
    ContentRating.NC_17,
)


class UserContext(BaseModel):
    """What the platform knows about the user (what tools may reveal about them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_id: str = Field(default="user_1", min_length=1)
    age: int | None = Field(default=None, ge=1, le=120, description="Age in years, if known.")
    services: list[str] = Field(default_factory=list, description="Subscribed streaming services.")
    watch_history: list[WatchEntry] = Field(default_factory=list)
    maturity_limit: ContentRating | None = Field(
        default=None,
        description="Highest rating the profile allows (parental control); None = no limit.",
    )

    @field_validator("maturity_limit")
    @classmethod
    def _limit_is_ordered(cls, v: ContentRating | None) -> ContentRating | None:
        if v is ContentRating.NR:
            raise ValueError("a rating from G, PG, PG-13, R, NC-17 (NR cannot be a limit)")
        return v

    @property
    def watched_ids(self) -> frozenset[str]:
        return frozenset(w.item_id for w in self.watch_history)

    def content_allowed(self, rating: ContentRating | str) -> tuple[bool, str]:
        """The maturity gate: may this profile be shown a title rated `rating`, and why."""
        rating = ContentRating(rating)
        limit = self.maturity_limit
        if self.age is not None and self.age < 17:
            limit = min(limit or ContentRating.PG_13, ContentRating.PG_13, key=MATURITY_ORDER.index)
        elif self.age is not None and self.age < 18:
            limit = min(limit or ContentRating.R, ContentRating.R, key=MATURITY_ORDER.index)
        if limit is None:
            note = (
                " (age-restricted: confirm with the user)"
                if rating in AGE_RESTRICTED_RATINGS
                else ""
            )
            return True, f"{rating.value} is allowed for this profile{note}"
        if rating is ContentRating.NR:
            ok = limit in (ContentRating.R, ContentRating.NC_17)
        else:
            ok = MATURITY_ORDER.index(rating) <= MATURITY_ORDER.index(limit)
        why = f"the profile allows titles up to {limit.value}"
        return ok, f"{rating.value} is {'allowed' if ok else 'not allowed'}: {why}"


class Protocol(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_turns: int = Field(
        default=20, ge=1, le=200, description="Agent messages before the user leaves."
    )
    max_recommendations: int = Field(
        default=1, ge=1, le=20, description="Committing recommend calls allowed; 1 = terminal."
    )


def _strata_problems(task: RecommendationTask) -> list[tuple[str, str]]:
    return [
        (
            "complexity" if m.startswith("declared complexity") else "reveal_difficulty",
            f"{m}; expected the declared stratum to match (or leave it out)",
        )
        for m in task.strata_mismatches()
    ]


#: What a user may ask about a title before taking it (the information need's requests).
RequestSlot = Literal[
    "director",
    "runtime",
    "release_date",
    "cast",
    "rating",
    "content_rating",
    "streaming_services",
    "original_language",
]


@task_kind(
    "recommendation",
    description="τ-Rec: elicit from a simulated user, search, commit to one item or abstain",
    checks=lambda task: _strata_problems(task),
)
class RecommendationTask(HashedTask):
    """One τ-Rec-style task: elicit, search, and commit to one item (or abstain)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format_version: Literal[1] = TASK_FORMAT_VERSION
    kind: Literal["recommendation"] = "recommendation"
    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    persona: str = Field(min_length=1, description="Who the user is, in their own terms.")
    constraints: list[Constraint] = Field(min_length=1)
    soft_preferences: list[str] = Field(default_factory=list)
    requests: list[RequestSlot] = Field(
        default_factory=list,
        # left out when empty: task files and hashes stay as they were before the field
        exclude_if=lambda v: not v,
        description="What the user wants to learn about a title before taking it (the "
        "information need's requests); empty: the simulated user draws them per episode.",
    )
    policy_flags: list[PolicyName] = Field(default_factory=list)
    user: UserContext = Field(default_factory=UserContext)
    no_valid_recommendation: bool = False
    complexity: Complexity | None = Field(
        default=None, description="Declared; checked against derived."
    )
    reveal_difficulty: RevealDifficulty | None = Field(default=None)
    protocol: Protocol = Field(default_factory=Protocol)

    @model_validator(mode="after")
    def _no_duplicate_flags(self) -> RecommendationTask:
        if len(set(self.policy_flags)) != len(self.policy_flags):
            raise ValueError("policy_flags without duplicates")
        return self

    @property
    def derived_complexity(self) -> Complexity:
        return complexity_of(len(self.constraints))

    @property
    def derived_reveal_difficulty(self) -> RevealDifficulty:
        return reveal_difficulty_of([c.reveal for c in self.constraints])

    @property
    def stratum(self) -> tuple[Complexity, RevealDifficulty]:
        """Declared stratum when given, else derived."""
        return (
            self.complexity or self.derived_complexity,
            self.reveal_difficulty or self.derived_reveal_difficulty,
        )

    def strata_mismatches(self) -> list[str]:
        out = []
        if self.complexity and self.complexity != self.derived_complexity:
            out.append(
                f"declared complexity {self.complexity.value!r} but {len(self.constraints)} "
                f"constraints make it {self.derived_complexity.value!r}"
            )
        if self.reveal_difficulty and self.reveal_difficulty != self.derived_reveal_difficulty:
            out.append(
                f"declared reveal_difficulty {self.reveal_difficulty.value!r} but its reveal tags "
                f"make it {self.derived_reveal_difficulty.value!r}"
            )
        return out

    def constraints_by(self, reveal: Reveal) -> list[Constraint]:
        return [c for c in self.constraints if c.reveal is reveal]


Task = RecommendationTask
