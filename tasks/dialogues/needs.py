"""Recommendation tasks from dialogues (`taurec dialogues tasks`): the information need a
human seeker had, over a catalog.

For each dialogue, the target is the first title the user accepted (an acceptance naming
no title takes the titles the agent last recommended) that the catalog has
(titles match once normalised, release years within one, as MovieLens titles are
mapped: taurec.catalog.movielens_mapping). The constraints are the genres the user
disclosed that the target has (volunteered; none disclosed: the target's first genre,
stated when asked); the other titles the user named as liked become soft preferences
("something like X"); what the user asked about (who is in it, who directed it, its
year...) becomes the task's requests (at most two), which the simulated users then ask.
The user subscribes to nothing and has watched nothing, and the only
flag is recommend_tool, so a text-only CRS can win the task. A task that does not pass
strict validation (fewer than two answers, say) is left out and counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from taurec.catalog.item import Item
from taurec.catalog.movielens_mapping import normalise_title
from taurec.catalog.store import Catalog
from taurec.tasks.dialogues.format import AnnotatedDialogue
from taurec.tasks.recommendation.constraint import Constraint, Op, Reveal
from taurec.tasks.recommendation.task import (
    PolicyName,
    RecommendationTask,
    RequestSlot,
    UserContext,
)
from taurec.tasks.recommendation.validate import Vocabulary, check_task

PERSONA = "You are a movie fan looking for something to watch tonight."


@dataclass
class NeedsReport:
    dialogues: int = 0
    tasks: list[RecommendationTask] = field(default_factory=list)
    no_accepted_title: int = 0  # no title accepted, or none the catalog has
    not_valid: int = 0  # the task failed strict validation

    def line(self) -> str:
        return (
            f"{len(self.tasks)} tasks from {self.dialogues} dialogues ({self.no_accepted_title} "
            f"without an accepted title the catalog has, {self.not_valid} not valid)"
        )


class TitleIndex:
    """Catalog items by normalised title, with their release years."""

    def __init__(self, items: Iterable[Item]) -> None:
        self.by_title: dict[str, list[Item]] = defaultdict(list)
        for item in items:
            self.by_title[normalise_title(item.title)[0]].append(item)

    def find(self, title: str) -> Item | None:
        key, year = normalise_title(title)
        found = [
            it
            for it in self.by_title.get(key, [])
            if year is None or abs(it.release_date.year - year) <= 1
        ]
        return found[0] if len(found) == 1 else None


def _said(dialogue: AnnotatedDialogue, intent: str, slot: str | None = None) -> list[str]:
    """What the user's acts of `intent` were about: their values for `slot`, or (no slot)
    their items, an act naming none being about the titles the agent last recommended."""
    out: list[str] = []
    offered: tuple[str, ...] = ()
    for u in dialogue.utterances:
        if u.participant == "agent":
            recommended = tuple(i for a in u.acts if a.intent == "recommend" for i in a.items)
            offered = recommended or offered
            continue
        for a in u.acts:
            if a.intent != intent:
                continue
            if slot is None:
                out += list(a.items or offered)
            elif a.slot in (slot, slot.rstrip("s")) and a.value:
                out.append(a.value)
    return out


#: The slots a user asks about in dialogue data (IARD's, taurec's) -> a request slot.
_REQUESTS: dict[str, RequestSlot] = {
    "actor": "cast",
    "cast": "cast",
    "director": "director",
    "year": "release_date",
    "release_date": "release_date",
    "rating": "rating",
    "runtime": "runtime",
    "content_rating": "content_rating",
    "streaming_services": "streaming_services",
    "original_language": "original_language",
}


def _asked(dialogue: AnnotatedDialogue) -> list[str]:
    """The slots the user's inquiries named, in order."""
    return [
        a.slot
        for u in dialogue.utterances
        if u.participant == "user"
        for a in u.acts
        if a.intent == "inquire" and a.slot
    ]


def _task(ident: str, dialogue: AnnotatedDialogue, titles: TitleIndex) -> RecommendationTask | None:
    target = next((it for t in _said(dialogue, "accept") if (it := titles.find(t))), None)
    if target is None or not target.genres:
        return None
    said = {g.casefold() for g in _said(dialogue, "disclose", "genres")}
    genres = [g for g in target.genres if g.casefold() in said]
    constraints = [
        Constraint(field="genres", op=Op.CONTAINS, value=g, reveal=Reveal.VOLUNTEER) for g in genres
    ] or [Constraint(field="genres", op=Op.CONTAINS, value=target.genres[0], reveal=Reveal.ON_ASK)]
    liked = [
        t for t in _said(dialogue, "disclose", "title") if titles.find(t) not in (None, target)
    ]
    asked = [_REQUESTS[slot] for slot in _asked(dialogue) if slot in _REQUESTS]
    return RecommendationTask(
        id=ident,
        persona=PERSONA,
        constraints=constraints,
        soft_preferences=[f"something like {t}" for t in dict.fromkeys(liked)][:3],
        requests=list(dict.fromkeys(asked))[:2],
        policy_flags=[PolicyName.RECOMMEND_TOOL],
        user=UserContext(),
    )


def tasks_from_dialogues(
    dialogues: Iterable[AnnotatedDialogue], catalog: Catalog, id_prefix: str = "dlg"
) -> NeedsReport:
    """One task per dialogue that gives one (see the module docstring)."""
    report = NeedsReport()
    titles = TitleIndex(catalog)
    vocab = Vocabulary(catalog)
    for n, dialogue in enumerate(dialogues):
        report.dialogues += 1
        safe = "".join(ch if ch.isalnum() else "_" for ch in (dialogue.id or str(n)))
        task = _task(f"{id_prefix}_{safe}", dialogue, titles)
        if task is None:
            report.no_accepted_title += 1
            continue
        checked = check_task(task, catalog, strict=True, vocab=vocab)
        if checked.errors or checked.warnings:
            report.not_valid += 1
            continue
        report.tasks.append(task)
    return report
