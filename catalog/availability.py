"""Availability: does an item stream on any of the services a user subscribes to?

Service names go through `taurec.catalog.services`, so "Prime Video" matches an item on
"Amazon Prime Video". A name we do not know is still compared case- and
spacing-insensitively, and reported in `unknown_services` so callers can say so.
`asked` answers for services a caller names itself (τ-Rec's check_availability takes
them): whether the item streams on each, whoever subscribes to it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.item import Item
from taurec.catalog.services import canonical_service, known_service, service_key


class UnknownItem(KeyError):
    """An item id that is not in the catalog."""

    def __init__(self, item_id: str) -> None:
        self.item_id = item_id
        super().__init__(item_id)

    def __str__(self) -> str:
        return f"unknown item id {self.item_id!r}; expected an id from search or filter results"


class Availability(BaseModel):
    """Where one item streams, seen from one user's subscriptions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str = Field(description="The item asked about.")
    available: bool = Field(description="True when at least one of the user's services streams it.")
    matched: list[str] = Field(
        description="Canonical names of the user's services that stream the item."
    )
    item_services: list[str] = Field(
        description="Canonical names of every service that streams the item."
    )
    unknown_services: list[str] = Field(
        default_factory=list,
        description="User service names not recognised as a known service (still compared).",
    )
    asked: dict[str, bool] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="Each service named in the call's `services`, as given: whether the item "
        "streams on it (absent when the call named none). `available` is about the user's "
        "own services whatever is named here.",
    )


def streams_on(item: Item, names: list[str]) -> dict[str, bool]:
    """Each of `names`, as given: whether `item` streams on that service."""
    have = {service_key(s) for s in item.streaming_services}
    return {name: service_key(name) in have for name in names}


def availability(item: Item | None, item_id: str, services: list[str]) -> Availability:
    """Compare `item`'s services with the user's; `item` is None when the id is unknown."""
    if item is None:
        raise UnknownItem(item_id)
    have = {service_key(s): s for s in item.streaming_services}
    matched: list[str] = []
    unknown: list[str] = []
    for name in services:
        if not known_service(name) and name not in unknown:
            unknown.append(name)
        found = have.get(service_key(name))
        if found is not None and found not in matched:
            matched.append(found)
    return Availability(
        item_id=item.id,
        available=bool(matched),
        matched=matched,
        item_services=[canonical_service(s) for s in item.streaming_services],
        unknown_services=unknown,
    )
