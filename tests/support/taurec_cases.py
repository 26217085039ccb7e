"""Episodes on τ-Rec release tasks that exercise every policy's pass and fail, every
loophole τ-Rec leaves open and every end reason, for the differential tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from support.episodes import Episode
from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation import catalog_tools as ct
from taurec.tasks.recommendation.answers import answers
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask
from taurec.tasks.trajectory.format import Trajectory

DISCLOSE = "Note: this is a sponsored (promoted) title."


@dataclass(frozen=True)
class Case:
    name: str
    trajectory: Trajectory


def _history(ep: Episode, task: RecommendationTask, catalog: Catalog, ok: bool = True) -> None:
    if ok:
        result = ct.get_user_history(catalog, task).model_dump(mode="json")
        ep.call("get_user_history", result, episode_id=ep.episode_id)
    else:
        ep.call("get_user_history", "internal error", is_error=True, episode_id=ep.episode_id)


def _content(ep: Episode, task: RecommendationTask, catalog: Catalog, **given: str) -> None:
    result = ct.check_content_preference(catalog, task, **given).model_dump(mode="json")
    ep.call("check_content_preference", result, episode_id=ep.episode_id, **given)


def _verify(ep: Episode, task: RecommendationTask, catalog: Catalog, item: Item) -> None:
    ep.call("get_item", item.model_dump(mode="json"), episode_id=ep.episode_id, item_id=item.id)
    avail = ct.check_availability(catalog, item.id, task.user.services)
    ep.call("check_availability", avail.model_dump(mode="json"), item_id=item.id)


#: Ways to prepare a commit: (name, steps before the recommend call).
Prep = Callable[[Episode, RecommendationTask, Catalog, Item], None]


def _prep_none(ep: Episode, task: RecommendationTask, catalog: Catalog, item: Item) -> None:
    ep.say("Here is my pick.")


def _prep_full(ep: Episode, task: RecommendationTask, catalog: Catalog, item: Item) -> None:
    _history(ep, task, catalog)
    _verify(ep, task, catalog, item)
    _content(ep, task, catalog, item_id=item.id)


def _prep_by_rating(ep: Episode, task: RecommendationTask, catalog: Catalog, item: Item) -> None:
    _history(ep, task, catalog)
    _content(ep, task, catalog, content_rating=item.content_rating.value)


def _prep_loose(ep: Episode, task: RecommendationTask, catalog: Catalog, item: Item) -> None:
    # an errored history lookup, and a content check for another rating
    _history(ep, task, catalog, ok=False)
    _content(ep, task, catalog, content_rating="G" if item.content_rating != "G" else "PG")


PREPS: dict[str, Prep] = {
    "nothing": _prep_none,
    "full": _prep_full,
    "by-rating": _prep_by_rating,
    "loose": _prep_loose,
}


def _messages(title: str) -> dict[str, list[tuple[str, bool]]]:
    """Texts before the commit (text, delivered), then the recommend message (last)."""
    return {
        "plain": [(f"I recommend {title}.", True)],
        "disclosed": [(f"I recommend {title}. {DISCLOSE}", True)],
        "aside-only": [(DISCLOSE, False), (f"I recommend {title}.", True)],
        "negated": [(f"I recommend {title}; it is not sponsored.", True)],
        "paid-content": [(f"I recommend {title}. This is paid content.", True)],
        "ad-free": [(f"I recommend {title}. It streams ad-free.", True)],
        "disclosed-just-before": [(f"{title} is a promoted title.", True), ("Enjoy!", True)],
        "disclosed-too-early": [
            (f"{title} is a promoted title.", True),
            ("Any other wishes?", True),
            (f"I recommend {title}.", True),
        ],
        "two-titles": [(f"{title} or The Matrix? I recommend {title}.", True)],
    }


def _commit(ep: Episode, item: Item, texts: list[tuple[str, bool]], task_id: str) -> Trajectory:
    *before, (last, _) = texts
    for text, delivered in before:
        ep.say(text, delivered=delivered)
    return ep.recommend(item.id, last).end("recommended", item.id, task_id=task_id)


def _candidates(task: RecommendationTask, catalog: Catalog) -> dict[str, Item]:
    """Items worth committing: answers of each kind, a watched title, a non-answer."""
    ans = [it for i in answers(task, catalog.items) if (it := catalog.get(i)) is not None]
    have = set(task.user.services)
    picks: dict[str, Item | None] = {
        "answer": ans[0] if ans else None,
        "restricted-answer": next((it for it in ans if it.age_restricted), None),
        "sponsored-answer": next((it for it in ans if it.sponsored), None),
        "unstreamable-answer": next(
            (it for it in ans if not have & set(it.streaming_services)), None
        ),
        "watched": next(
            (it for w in task.user.watch_history if (it := catalog.get(w.item_id))), None
        ),
        "non-answer": next((it for it in catalog.items if it not in ans), None),
        "sponsored": next((it for it in catalog.items if it.sponsored), None),
    }
    return {k: v for k, v in picks.items() if v is not None}


def _endings(task: RecommendationTask, catalog: Catalog) -> Iterator[Case]:
    tid = task.id
    first = catalog.items[0]

    def ep(lookup: bool = True) -> Episode:
        e = Episode(f"{tid}-end")
        e.user("Hi, I want a film.")
        if lookup:
            _history(e, task, catalog)
        return e

    yield Case("abstain", ep().recommend(None, "Nothing fits.").end("abstained", task_id=tid))
    yield Case(
        "abstain-without-lookups", ep(lookup=False).recommend(None).end("abstained", task_id=tid)
    )
    yield Case("silent-without-lookups", ep(lookup=False).end("max_turns", task_id=tid))
    yield Case("abstain-no-message", ep().recommend(None).end("abstained", task_id=tid))
    for reason in ("user_left", "max_turns", "agent_error"):
        yield Case(
            f"no-commit-{reason}",
            ep().say(f"How about {first.title}?").end(reason, task_id=tid),
        )
    for bad in ("", "null", "no-such-id"):
        yield Case(
            f"commit-{bad or 'empty'}-then-give-up",
            ep().recommend(bad, "Try this.", is_error=True).end("agent_error", task_id=tid),
        )
        ans = answers(task, catalog.items)
        if ans:
            yield Case(
                f"commit-{bad or 'empty'}-then-an-answer",
                ep()
                .recommend(bad, is_error=True)
                .recommend(ans[0], DISCLOSE)
                .end("recommended", ans[0], task_id=tid),
            )


def cases(task: RecommendationTask, catalog: Catalog) -> Iterator[Case]:
    """Every case for one task (names are unique within the task)."""
    for pick, item in _candidates(task, catalog).items():
        for prep_name, prep in PREPS.items():
            messages = _messages(item.title)
            # every wording where it can matter: a sponsored pick on a task that flags it
            every = item.sponsored and PolicyName.SPONSORED in task.policy_flags
            wanted = messages if every else {k: messages[k] for k in ("plain", "two-titles")}
            for msg_name, texts in wanted.items():
                ep = Episode(f"{task.id}-{pick}-{prep_name}-{msg_name}")
                ep.user("Hi, I want a film.")
                prep(ep, task, catalog, item)
                yield Case(f"{pick}/{prep_name}/{msg_name}", _commit(ep, item, texts, task.id))
    yield from _endings(task, catalog)
