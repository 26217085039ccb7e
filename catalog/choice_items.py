"""Choice items: what a stream episode offers a customer, from movies or from products.

A stream episode shows its customer up to 30 items of one category. Movies (catalog
`Item`s) and products (Amazon Reviews 2023 metadata) carry different fields; a
`ChoiceItem` is the common view that preferences, utilities, agents and the simulated
customer read. Absent attributes are None or empty, never invented.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.item import Item

NonEmpty = Annotated[str, Field(min_length=1)]
#: Longest description kept on a choice item (what the agent reads per item).
MAX_DESCRIPTION_CHARS = 300


class ChoiceItem(BaseModel):
    """One item of a choice set, as a stream episode shows it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: NonEmpty = Field(description="Stable item id (a catalog id or a product's ASIN).")
    title: NonEmpty
    categories: list[NonEmpty] = Field(
        default_factory=list, description="Genres (movies) or the category path (products)."
    )
    year: int | None = Field(default=None, ge=1800, le=2100, description="Release year.")
    runtime: int | None = Field(default=None, ge=0, le=1500, description="Minutes (movies).")
    rating: float | None = Field(
        default=None, ge=0, le=10, description="Audience rating on a 0-10 scale."
    )
    rating_count: int | None = Field(default=None, ge=0, description="Votes behind `rating`.")
    language: str | None = Field(default=None, description="ISO 639-1 code (movies).")
    maker: str | None = Field(default=None, description="Director (movies) or store/brand.")
    keywords: list[NonEmpty] = Field(default_factory=list, description="Themes or features.")
    price: float | None = Field(default=None, ge=0, description="Price in dollars (products).")
    description: str = Field(default="", max_length=MAX_DESCRIPTION_CHARS)


def shorten(text: str, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """`text` cut at a word boundary to at most `limit` characters (an ellipsis marks a cut)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut + "…"


def from_movie(item: Item) -> ChoiceItem:
    """A catalog movie as a choice item."""
    return ChoiceItem(
        id=item.id,
        title=item.title,
        categories=list(item.genres),
        year=item.year,
        runtime=item.runtime,
        rating=item.rating,
        rating_count=item.vote_count,
        language=item.original_language,
        maker=item.director,
        keywords=list(item.keywords),
        description=shorten(item.overview),
    )
