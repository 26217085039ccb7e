"""Leaks between the streams of one suite: what one stream's feedback tells of another's.

A sealed contestant plays every stream of its plan and may keep what it heard across
them. Feedback grades the chosen item for that episode's customer (regret, stars or the
customer's words), so it says when an item was the customer's best ("Regret: 0.0", 5 of
5 stars, "Perfect!").

- Hard leak (an error): an episode whose best item is also a best item of an episode of
  another stream with the same customer (persona id). Once that stream's feedback has
  graded the item as the best, this episode's answer is known. It covers the same choice
  set shown to the same customer twice and the same category whose best is the same. A
  stream whose feedback is `none` grades nothing, so it gives nothing away.
- Shared customers (a warning, with counts): a persona in more than one stream, so what
  a contestant learns of a customer's tastes in one stream helps it in another. This is
  BIEL's design: each of its seeds draws customers from one pool. `--cross-stream
  distinct` (`CrossStream.DISTINCT`) gives each stream customers of its own.

Within one stream, carrying what was learnt from episode to episode is what BIEL
measures, so nothing inside a stream is a leak.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Final

from taurec.tasks.stream.task import FeedbackKind, StreamEpisodeSpec, StreamTask

_SHOWN: Final = 3  # streams named in a warning before "and N more"


def best_items(episode: StreamEpisodeSpec) -> set[str]:
    """The items of the episode's choice set with its best utility (ties all count)."""
    best = episode.best
    return {i for i in episode.item_ids if episode.utilities[i] == best}


class BestIndex:
    """Each customer's best items in the streams indexed so far, and where each was best."""

    def __init__(self) -> None:
        self._where: dict[tuple[str, str], tuple[str, int]] = {}

    def clash(self, episode: StreamEpisodeSpec) -> tuple[str, str, int] | None:
        """(item, stream id, episode index) of an indexed episode of the same customer
        that shares a best item with `episode`, or None."""
        for item in sorted(best_items(episode)):
            where = self._where.get((episode.persona_id, item))
            if where is not None:
                return item, *where
        return None

    def add(self, task: StreamTask) -> None:
        if task.feedback is FeedbackKind.NONE:
            return  # it grades nothing
        for n, episode in enumerate(task.episodes):
            for item in best_items(episode):
                self._where.setdefault((episode.persona_id, item), (task.id, n))


@dataclass(frozen=True)
class StreamLeaks:
    """What the streams of a suite give away to each other (see the module docstring)."""

    #: Stream id -> its hard leaks, one line per episode whose answer another stream gives.
    hard: dict[str, list[str]] = field(default_factory=dict)
    personas: int = 0  # distinct customers in the suite
    shared: int = 0  # customers in more than one stream
    most_streams: int = 0  # the most streams one customer appears in
    most_shared: list[str] = field(default_factory=list)  # those customers' ids
    stream_pairs: int = 0  # pairs of streams that share a customer

    @property
    def hard_episodes(self) -> int:
        return sum(len(v) for v in self.hard.values())

    def warnings(self) -> list[str]:
        if not self.shared:
            return []
        ids = ", ".join(repr(p) for p in self.most_shared[:_SHOWN])
        more = (
            f" and {len(self.most_shared) - _SHOWN} more" if len(self.most_shared) > _SHOWN else ""
        )
        return [
            f"shared_personas: {self.shared} of {self.personas} customers appear in more than "
            f"one stream (up to {self.most_streams} streams: {ids}{more}; {self.stream_pairs} "
            "pairs of streams share a customer). This is BIEL's design (its seeds draw "
            "customers from one pool); a contestant that keeps what it learns across streams "
            "carries a customer's tastes from one stream into another. Generate with "
            "--cross-stream distinct (and --personas enough for every stream) to avoid it"
        ]

    def as_json(self) -> dict[str, object]:
        return {
            "hard_episodes": self.hard_episodes,
            "personas": self.personas,
            "shared_personas": self.shared,
            "most_streams_per_persona": self.most_streams,
            "stream_pairs_sharing_a_persona": self.stream_pairs,
        }


def _streams_by_persona(tasks: Iterable[StreamTask]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for task in tasks:
        for persona in sorted(task.persona_ids):
            out.setdefault(persona, []).append(task.id)
    return out


def stream_leaks(tasks: Sequence[StreamTask]) -> StreamLeaks:
    """The hard leaks between `tasks` (both sides of each) and their shared customers."""
    where: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for task in tasks:
        if task.feedback is FeedbackKind.NONE:
            continue  # it grades nothing
        for n, episode in enumerate(task.episodes):
            for item in best_items(episode):
                where.setdefault((episode.persona_id, item), []).append((task.id, n))
    hard: dict[str, list[str]] = {}
    for task in tasks:
        for n, episode in enumerate(task.episodes):
            elsewhere = sorted(
                {
                    (item, other, m)
                    for item in best_items(episode)
                    for other, m in where.get((episode.persona_id, item), ())
                    if other != task.id
                }
            )
            if elsewhere:
                item, other, m = elsewhere[0]
                more = f" (and {len(elsewhere) - 1} more)" if len(elsewhere) > 1 else ""
                hard.setdefault(task.id, []).append(
                    f"episodes[{n}]: its best item {item!r} is a best item of episodes[{m}] of "
                    f"stream {other!r}{more} for the same customer {episode.persona_id!r}, "
                    "whose feedback gives it away; expected a customer to meet a best item "
                    "in one stream only"
                )
    streams = _streams_by_persona(tasks)
    counts = {p: len(ids) for p, ids in streams.items()}
    most = max(counts.values(), default=0)
    pairs = {pair for ids in streams.values() for pair in combinations(ids, 2)}
    return StreamLeaks(
        hard=hard,
        personas=len(streams),
        shared=sum(1 for n in counts.values() if n > 1),
        most_streams=most,
        most_shared=sorted(p for p, n in counts.items() if n == most and n > 1),
        stream_pairs=len(pairs),
    )
