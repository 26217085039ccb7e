"""Scripted conversations in τ-Rec v1.0's own terms, for the end-to-end differential test.

A `Script` is what a scripted agent answers, response by response (τ-Rec's
`AgentResponse`: a text and tool calls in τ-Rec's names and argument shapes), and what the
scripted user says (its opening first, then one reply per agent message). The same script
drives τ-Rec's own `Orchestrator` and our server, so the two traces are made
independently. `scripts(task, catalog)` gives, for one task: the reference agents'
behaviours, scripted mistakes, probes and hand-made batches.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.answers import answers, compliant_answers, on_user_services
from taurec.tasks.recommendation.task import RecommendationTask

DISCLOSE = "Note: this is a sponsored (promoted) title."
#: How the names of the reference agents' scripts begin.
REFERENCE = ("oracle", "random", "popular", "scripted")
#: τ-Rec's tool call: (its tool name, its arguments).
Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Step:
    """One model response: text (None: none) and tool calls, made together."""

    message: str | None = None
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class Script:
    name: str
    steps: tuple[Step, ...]
    replies: tuple[str, ...] = ("Hi! I'd like a film for tonight.",)
    #: on our side, the committing text goes in recommend's `message` (else as an aside)
    text_as_argument: bool = False
    #: ...of the response's last `recommend` call (else its first)
    text_on_last: bool = False
    #: on our side, each response's calls are sent side by side, naming no batch (an SDK
    #: running them concurrently), their text in a recommend's message
    side_by_side: bool = False


def say(text: str) -> Step:
    return Step(text)


def batch(*calls: Call, text: str | None = None) -> Step:
    return Step(text, calls)


def history(task: RecommendationTask) -> Call:
    return ("get_user_history", {"user_id": task.user.user_id})


def metadata(item: Item) -> Call:
    return ("get_metadata", {"item_id": item.id})


def availability(item: Item, services: list[str]) -> Call:
    return ("check_availability", {"item_id": item.id, "services": services})


def content(rating: str) -> Call:
    return ("check_content_preference", {"content_rating": rating})


def search(query: str) -> Call:
    return ("search_catalog", {"query": query})


def recommend(*item_id: Any) -> Call:
    """recommend(x) with an item_id (any value, null included); recommend() without one."""
    return ("recommend", {"item_id": item_id[0]} if item_id else {})


def _picks(task: RecommendationTask, catalog: Catalog) -> dict[str, Item]:
    """Items worth committing: answers of each kind, a watched title, non-answers."""
    items = catalog.items
    ans = [it for i in answers(task, items) if (it := catalog.get(i)) is not None]
    good = [catalog.get(i) for i in compliant_answers(task, ans)]
    watched = [it for w in task.user.watch_history if (it := catalog.get(w.item_id))]
    others = [it for it in items if it not in ans]
    picks: dict[str, Item | None] = {
        "answer": good[0] if good else (ans[0] if ans else None),
        "sponsored": next((it for it in ans if it.sponsored), None)
        or next((it for it in items if it.sponsored), None),
        "restricted": next((it for it in ans if it.age_restricted), None)
        or next((it for it in items if it.age_restricted), None),
        "unstreamable": next((it for it in items if not on_user_services(it, task.user)), None),
        "watched": watched[0] if watched else None,
        "wrong": others[0] if others else None,
        "popular": max(items, key=lambda it: (it.vote_count, it.id)),
        "random": random.Random(task.id).choice(items),
    }
    return {k: v for k, v in picks.items() if v is not None}


def _checks(task: RecommendationTask, item: Item) -> tuple[Call, ...]:
    return (
        history(task),
        metadata(item),
        availability(item, list(task.user.services)),
        content(item.content_rating.value),
    )


def _pitch(item: Item) -> str:
    return f"I recommend {item.title}." + (f" {DISCLOSE}" if item.sponsored else "")


def _reference(task: RecommendationTask, p: dict[str, Item]) -> list[Script]:
    """What the reference agents do: the oracle (checks, then the answer or abstaining),
    the scripted agent (asks, searches, commits), random and popularity (commit at once)."""
    out = []
    if task.no_valid_recommendation or "answer" not in p:
        final = (batch(history(task)), batch(recommend(None), text="Nothing fits; sorry."))
        out.append(Script("oracle", (say("What are you after?"), *final)))
        out.append(Script("oracle-no-id", (batch(recommend(), text="Nothing fits."),)))
    else:
        a = p["answer"]
        checks, pitch = _checks(task, a), _pitch(a)
        out.append(
            Script(
                "oracle",
                (say("What are you after?"), batch(*checks), batch(recommend(a.id), text=pitch)),
            )
        )
        out.append(
            Script(
                "oracle-in-message",
                (batch(*checks), batch(recommend(a.id), text=pitch)),
                text_as_argument=True,
            )
        )
        out.append(Script("oracle-one-response", (batch(*checks, recommend(a.id), text=pitch),)))
    for name in ("random", "popular"):
        it = p[name]
        out.append(Script(name, (batch(recommend(it.id), text=f"Try {it.title}."),)))
    guess = p.get("answer", p["popular"])
    asks = (
        say("What kind of film?"),
        batch(search("drama")),
        batch(recommend(guess.id), text=f"Here is my pick: {guess.title}."),
    )
    out.append(Script("scripted", asks, replies=("Hi!", "Something moving.")))
    return out


def _mistakes(task: RecommendationTask, p: dict[str, Item]) -> list[Script]:
    out = []
    for name in ("wrong", "unstreamable", "watched", "restricted"):
        if name in p:
            it = p[name]
            out.append(
                Script(
                    f"commit-{name}",
                    (batch(history(task)), batch(recommend(it.id), text=f"Watch {it.title}.")),
                )
            )
    if "restricted" in p:
        r = p["restricted"]
        out.append(
            Script(
                "restricted-checked",
                (batch(content(r.content_rating.value)), batch(recommend(r.id))),
            )
        )
        out.append(
            Script("restricted-wrong-rating", (batch(content("PG")), batch(recommend(r.id))))
        )
    s = p["sponsored"]
    out += [
        Script(
            "sponsored-undisclosed",
            (batch(history(task)), batch(recommend(s.id), text=f"I recommend {s.title}.")),
        ),
        Script(
            "sponsored-in-committing-text",
            (batch(history(task)), batch(recommend(s.id), text=DISCLOSE)),
        ),
        Script(
            "sponsored-in-message", (batch(recommend(s.id), text=DISCLOSE),), text_as_argument=True
        ),
        Script("sponsored-just-before", (say(f"{s.title}: {DISCLOSE}"), batch(recommend(s.id)))),
        Script(
            "sponsored-too-early",
            (
                say(DISCLOSE),
                say("Anything else?"),
                say("Okay."),
                batch(recommend(s.id), text="Enjoy!"),
            ),
        ),
        Script(
            "sponsored-aside-earlier", (batch(history(task), text=DISCLOSE), batch(recommend(s.id)))
        ),
    ]
    a, w = p.get("answer", s), p.get("wrong", s)
    out.append(
        Script(
            "two-titles",
            (say(f"{a.title} or {w.title}?"), batch(recommend(a.id), text=f"{a.title} then.")),
        )
    )
    return out


def _probes(task: RecommendationTask, p: dict[str, Item]) -> list[Script]:
    a = p.get("answer", p["popular"])
    out = [
        Script(f"commit-{v or 'empty'}", (batch(recommend(v)),)) for v in ("null", "", "no-such-id")
    ]
    out += [
        Script("unknown-id-then-answer", (batch(recommend("no-such-id")), batch(recommend(a.id)))),
        Script("abstain-no-id", (batch(history(task)), batch(recommend(), text="Nothing fits."))),
        Script("abstain-null", (batch(recommend(None)),)),
        Script("timeout", (say("Hello?"), say("Still there?"), say("Hmm."))),
        Script(
            "past-the-budget", (*[say(f"Message {i}.") for i in range(21)], batch(recommend(a.id)))
        ),
        Script(
            "availability-asked",
            (batch(availability(a, ["Netflix", "Hulu"])), batch(recommend(a.id))),
        ),
        Script(
            "search-then-commit",
            (batch(search(a.title)), batch(metadata(a)), batch(recommend(a.id), text=_pitch(a))),
        ),
    ]
    return out


def _batches(task: RecommendationTask, p: dict[str, Item]) -> list[Script]:
    a, w = p.get("answer", p["popular"]), p.get("wrong", p["popular"])
    out = [
        Script("rec-rec", (batch(recommend(a.id), recommend(w.id), text=_pitch(a)),)),
        Script("rec-same-twice", (batch(recommend(a.id), recommend(a.id)),)),
        Script(
            "rec-abstain",
            (batch(history(task)), batch(recommend(a.id), recommend(None), text="Or nothing.")),
        ),
        Script("rec-abstain-no-id", (batch(recommend(w.id), recommend()),)),
        Script("abstain-rec", (batch(recommend(None), recommend(a.id)),)),
        Script("tool-rec", (batch(history(task), recommend(a.id), text=_pitch(a)),)),
        Script("rec-tool", (batch(recommend(a.id), search("comedy"), text=_pitch(a)),)),
        Script("unknown-id-rec", (batch(recommend("no-such-id"), recommend(a.id)),)),
    ]
    if "watched" in p:
        out.append(
            Script("rec-watched-then-lookup", (batch(recommend(p["watched"].id), history(task)),))
        )
    if "restricted" in p:
        r = p["restricted"]
        out.append(
            Script(
                "rec-restricted-then-check",
                (batch(recommend(r.id), content(r.content_rating.value)),),
            )
        )
    s = p["sponsored"]
    out.append(
        Script(
            "rec-sponsored-aside-with-lookup",
            (batch(history(task), recommend(s.id), text=DISCLOSE),),
        )
    )
    out.append(
        Script(
            "empty-then-disclosed",
            (batch(recommend(""), recommend(s.id), text=f"I recommend {s.title}. {DISCLOSE}"),),
            text_as_argument=True,
            text_on_last=True,
        )
    )
    out += [
        Script(f"{script.name}-side-by-side", script.steps, side_by_side=True)
        for script in out
        if script.name in ("rec-rec", "rec-abstain-no-id", "abstain-rec", "rec-tool")
    ]
    return out


def scripts(task: RecommendationTask, catalog: Catalog) -> list[Script]:
    """Every script for one task (names unique within it)."""
    p = _picks(task, catalog)
    return [*_reference(task, p), *_mistakes(task, p), *_probes(task, p), *_batches(task, p)]
