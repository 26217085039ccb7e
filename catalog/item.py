"""The item schema: one movie (or show) in a catalog."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from taurec.catalog.services import canonical_service


class ContentRating(StrEnum):
    """MPA-style maturity ratings; NR is "not rated"."""

    G = "G"
    PG = "PG"
    PG_13 = "PG-13"
    R = "R"
    NC_17 = "NC-17"
    NR = "NR"


#: Ratings that policy treats as age-restricted (adult audiences).
AGE_RESTRICTED_RATINGS: frozenset[ContentRating] = frozenset({ContentRating.R, ContentRating.NC_17})

NonEmpty = Annotated[str, Field(min_length=1)]


class Item(BaseModel):
    """A catalog entry. Field names are the names constraints and filters use."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: NonEmpty = Field(description="Stable, unique item id, e.g. 'syn_000042' or 'tmdb_603'.")
    title: NonEmpty = Field(description="Display title.")
    release_date: date = Field(description="First release date (ISO 8601).")
    runtime: int = Field(ge=0, le=1500, description="Running time in minutes.")
    genres: list[NonEmpty] = Field(default_factory=list, description="Genre names, e.g. 'Comedy'.")
    overview: str = Field(default="", description="One-paragraph synopsis.")
    cast: list[NonEmpty] = Field(default_factory=list, description="Top-billed cast, in order.")
    director: str | None = Field(default=None, description="Director's name, if known.")
    rating: float = Field(ge=0, le=10, description="Audience vote average on a 0-10 scale.")
    vote_count: int = Field(ge=0, description="Number of audience votes behind `rating`.")
    streaming_services: list[NonEmpty] = Field(
        default_factory=list,
        description="Canonical names of the subscription services that stream it.",
    )
    sponsored: bool = Field(default=False, description="Promoted placement; must be disclosed.")
    content_rating: ContentRating = Field(
        description="Maturity rating: G, PG, PG-13, R, NC-17, NR."
    )
    original_language: str = Field(
        default="en",
        min_length=2,
        max_length=8,
        description="ISO 639-1 code of the original language.",
    )
    keywords: list[NonEmpty] = Field(default_factory=list, description="Descriptive tags.")

    @field_validator("streaming_services")
    @classmethod
    def _canonical_services(cls, v: list[str]) -> list[str]:
        out: list[str] = []
        for name in v:
            c = canonical_service(name)
            if c not in out:
                out.append(c)
        return out

    @property
    def year(self) -> int:
        return self.release_date.year

    @property
    def age_restricted(self) -> bool:
        return self.content_rating in AGE_RESTRICTED_RATINGS


#: Fields whose values are lists (constraints use contains / contains_any / not_contains).
LIST_FIELDS: frozenset[str] = frozenset({"genres", "cast", "streaming_services", "keywords"})
#: Fields that order (constraints may use <, <=, >=, ranges).
ORDERED_FIELDS: frozenset[str] = frozenset({"release_date", "runtime", "rating", "vote_count"})
ITEM_FIELDS: frozenset[str] = frozenset(Item.model_fields)
