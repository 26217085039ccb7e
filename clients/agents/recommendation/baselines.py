"""BIEL's non-learning baselines, through the public tools only.

- random: commits a uniformly random catalog title (seeded by run seed, task and trial).
- popularity: commits the most-voted title of the genre the user volunteered, if the
  opening names one the reader understands, else the most-voted title overall.

Neither asks anything or abstains, and neither lets the policies change its pick: they
are floors, not contestants. Both make the lookups the policy asks for before committing
(history, availability, maturity gate), so their scores measure the pick, not a missing
lookup.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from taurec.clients.agents.base import AgentSettings, Episode
from taurec.clients.agents.recommendation.needs import Needs
from taurec.clients.agents.recommendation.reading import read_needs
from taurec.policies.sponsorship import disclosures


async def _every_item(episode: Episode) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        extra = {"cursor": cursor} if cursor else {}
        page = await episode.call("filter_catalog", sort="title", limit=100, **extra)
        items += page.data.get("items", [])
        cursor = page.data.get("next_cursor")
        if page.is_error or not cursor:
            return items


async def _commit(episode: Episode, item: dict[str, Any]) -> None:
    """The policy's lookups for `item` (whatever they say), then the commit."""
    await episode.call("get_user_history")
    await episode.call("check_availability", item_id=item["id"])
    await episode.call("check_content_preference", item_id=item["id"])
    await episode.recommend(item["id"], f"Try {item['title']}.", disclosures(item))


class RandomAgent:
    def __init__(self, seed: int = 0, label: str = "random") -> None:
        self.label = label
        self.seed = seed

    async def run(self, episode: Episode) -> None:
        items = await _every_item(episode)
        if not items:
            await episode.recommend(None)
            return
        digest = hashlib.sha256(f"{self.seed}:{episode.task_id}:{episode.trial}".encode())
        item = random.Random(int.from_bytes(digest.digest()[:8], "big")).choice(items)
        await _commit(episode, item)


class PopularityAgent:
    def __init__(self, label: str = "popularity") -> None:
        self.label = label

    async def run(self, episode: Episode) -> None:
        needs = Needs()
        read_needs(episode.opening, needs)
        genres = sorted({g for s in needs.genre_sets for g in s})
        top: list[dict[str, Any]] = []
        if genres:
            page = await episode.call(
                "filter_catalog", genres_any=genres, sort="-popularity", limit=1
            )
            top = page.data.get("items", [])
        if not top:
            page = await episode.call("filter_catalog", sort="-popularity", limit=1)
            top = page.data.get("items", [])
        if not top:
            await episode.recommend(None)
            return
        await _commit(episode, top[0])


def make_random(settings: AgentSettings) -> RandomAgent:
    return RandomAgent(settings.seed, settings.label or "random")


def make_popularity(settings: AgentSettings) -> PopularityAgent:
    return PopularityAgent(settings.label or "popularity")
