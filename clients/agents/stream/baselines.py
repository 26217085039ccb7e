"""BIEL's baselines for streams: random and popularity; and the ceiling.

- random: a uniformly random item of each choice set (seeded by run seed, task, trial
  and episode); no questions.
- popularity: the item with the highest audience rating (ties: more votes, then the
  lower price, then the id); no questions. It reads the rating the items carry, not a
  field they lack.
- ceiling: reads the stream's utilities from the suite and recommends the best item of
  each episode (regret 0 by construction: the ceiling of a suite). BIEL's own oracle, an
  LLM that reads the persona, is oracle.py.

None of them learns: their feedback goes unread.
"""

from __future__ import annotations

import hashlib
import random
from functools import cache
from typing import Any

from taurec.clients.agents.stream.play import Action, Dialogue
from taurec.tasks.stream.task import StreamEpisodeSpec, StreamTask


def _item_ids(view: dict[str, Any]) -> list[str]:
    return [str(i["id"]) for i in view.get("items", [])]


class RandomStreamPolicy:
    def __init__(self, seed: int, task_id: str, trial: int, label: str = "random") -> None:
        self.label = label
        self._key = f"{seed}:{task_id}:{trial}"

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        return "recommend", self.choose(view)

    def choose(self, view: dict[str, Any]) -> str:
        digest = hashlib.sha256(f"{self._key}:{view.get('episode')}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big")).choice(_item_ids(view))

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        return None


def popularity_key(item: dict[str, Any]) -> tuple[float, int, float, str]:
    """Sort key, best first: higher rating, more votes, lower price, then id."""
    rating = item.get("rating")
    price = item.get("price")
    return (
        -(rating if rating is not None else -1.0),
        -(item.get("rating_count") or 0),
        price if price is not None else 0.0,
        str(item["id"]),
    )


class PopularityStreamPolicy:
    def __init__(self, label: str = "popularity") -> None:
        self.label = label

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        return "recommend", self.choose(view)

    def choose(self, view: dict[str, Any]) -> str:
        return str(min(view["items"], key=popularity_key)["id"])

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        return None


@cache
def _stream_tasks(spec: str) -> dict[str, StreamTask]:
    from taurec.tasks.suite import load_suite

    return {t.id: t for t in load_suite(spec).tasks if isinstance(t, StreamTask)}


def suite_task(suite: str, task_id: str) -> StreamTask:
    """The stream task `task_id` of `suite` (loaded once per suite)."""
    task = _stream_tasks(suite).get(task_id)
    if task is None:
        raise KeyError(f"stream task {task_id!r} is not in suite {suite!r}")
    return task


def played_episode(task: StreamTask, view: dict[str, Any]) -> StreamEpisodeSpec:
    """The task's episode `view` shows: the one at the view's position when its category
    and choice set are the view's, else (episodes played in another order) the first
    that matches them. A variable_persona stream played in another order shows the same
    set every episode, so there the customer cannot be told from the view."""
    ids = [str(i["id"]) for i in view.get("items", [])]
    position = task.episodes[int(view["episode"]) - 1]
    matching = [
        e for e in task.episodes if e.item_ids == ids and e.category_name == view.get("category")
    ]
    return position if position in matching or not matching else matching[0]


class CeilingStreamPolicy:
    """Knows the answer key: the best item of each episode of its task."""

    def __init__(self, task: StreamTask, label: str = "ceiling") -> None:
        self.label = label
        self.task = task

    @classmethod
    def for_suite(cls, suite: str, task_id: str, label: str = "ceiling") -> CeilingStreamPolicy:
        return cls(suite_task(suite, task_id), label)

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        return "recommend", self.choose(view)

    def choose(self, view: dict[str, Any]) -> str:
        return played_episode(self.task, view).ranked()[0]

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        return None
