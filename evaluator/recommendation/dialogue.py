"""Dialogue metrics, unanswered requests and the simulator-fault audit for any episode
whose log records dialogue acts: the hook `score_log` calls for every kind, the group
fields `aggregate` adds, and their rows in the reports.

The dialogue is the delivered messages of both sides, plus the committing `recommend`
calls that recommend something new (see `dialogue_of`). A log whose user messages carry
no acts (an older log, another harness) gets no dialogue metrics.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import Any

from taurec.catalog.store import Catalog
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.recommendation.dialogue_metrics import (
    AGENT,
    USER,
    Act,
    Utterance,
    dialogue_metrics,
    mean_metrics,
)
from taurec.evaluator.recommendation.simulator_audit import auditor
from taurec.evaluator.text import percent as _pct
from taurec.tasks.trajectory.format import Trajectory

_COMMIT = "recommend"


def _slot_items(acts: Iterable[dict[str, Any]], intent: str) -> set[tuple[str, str]]:
    """(slot, item id) of each act with this intent that names a slot (an answer without
    one can answer no request)."""
    return {
        (a["slot"], i)
        for a in acts
        if a["intent"] == intent and a.get("slot")
        for i in a.get("items") or ()
    }


_new = tuple.__new__  # builds the named tuples below without their Python-level __new__


def _acts(logged: list[dict[str, Any]]) -> tuple[tuple[Act, ...], tuple[str, ...]]:
    """A message's logged acts as Acts, and their intents."""
    acts = tuple(
        [_new(Act, (a["intent"], tuple(i) if (i := a.get("items")) else ())) for a in logged]
    )
    return acts, tuple([a[0] for a in acts])


def dialogue_of(
    events: Iterable[dict[str, Any]], on_user: Callable[[dict[str, Any]], None] | None = None
) -> tuple[list[Utterance], int, int] | None:
    """(utterances, requests asked, requests left unanswered), or None when no user
    message carries acts. A request is a user `inquire` about a slot of an item; an agent
    `answer` of that slot and item answers it. `on_user` sees each user message with
    acts (the audit rides on this one pass).

    The utterances are the delivered messages of both sides, and each successful
    committing `recommend` call with an item: the commit of a title the current round
    already recommends opens no round (its message, if any, is an agent utterance
    recommending nothing new) and the user's reaction is marked as a reaction to it; a
    commit of any other title is the agent's recommendation, an utterance of its own."""
    out: list[Utterance] = []
    append = out.append
    new, act_type, utterance_type = _new, Act, Utterance
    bare: dict[str, tuple[tuple[str], tuple[Act]]] = {}  # (intents, acts) of a lone act by intent
    asked: set[tuple[str, str]] = set()
    answered: set[tuple[str, str]] = set()
    with_acts = False
    titles: set[str] = set()  # what the current round recommends
    commit: tuple[str, str, str] | None = None  # (call id, item, message) not yet placed

    def place(item: str, message: str) -> str | None:
        """Put a commit that went through into the dialogue; the item a reaction to it
        would be about when it recommends nothing new, else None."""
        nonlocal titles
        if item in titles:
            if message:
                said = {"text": message, "acts": [{"intent": "other", "items": []}]}
                append(Utterance(AGENT, ("other",), source=said))
            return item
        titles = {item}
        said = {"text": message, "acts": [{"intent": "recommend", "items": [item]}]}
        append(Utterance(AGENT, ("recommend",), (Act("recommend", (item,)),), source=said))
        return None

    for ev in events:
        kind = ev["type"]
        # tool calls and results first: they are most of a log's events
        if kind == "tool_call":
            if ev["name"] != _COMMIT:
                continue
            arguments = ev.get("arguments") or {}
            item = arguments.get("item_id")
            if isinstance(item, str) and item:
                message = arguments.get("message")
                text = message.strip() if isinstance(message, str) else ""
                commit = (str(ev.get("call_id") or ""), item, text)
        elif kind == "tool_result":
            if commit is not None and ev.get("call_id") == commit[0]:
                if not ev.get("is_error"):  # went through, no reaction logged (another harness)
                    place(commit[1], commit[2])
                commit = None  # an error: refused or failed, nothing was committed
        elif kind == "user_message" or (kind == "agent_message" and ev.get("delivered", True)):
            logged: list[dict[str, Any]] = ev.get("acts") or []
            intents: tuple[str, ...]
            acts: tuple[Act, ...]
            if len(logged) == 1:  # the usual message, built here
                a = logged[0]
                items = a.get("items")
                if items:
                    intents = (a["intent"],)
                    acts = (new(act_type, (intents[0], tuple(items))),)
                else:  # one act naming no item: built once per intent
                    intent = a["intent"]
                    hit = bare.get(intent)
                    if hit is None:
                        hit = bare[intent] = ((intent,), (new(act_type, (intent, ())),))
                    intents, acts = hit
            else:
                acts, intents = _acts(logged)
            if kind == "agent_message":
                append(new(utterance_type, (AGENT, intents, acts, None, ev)))
                if "recommend" in intents:
                    titles = {i for a in acts if a[0] == "recommend" for i in a[1]}
                if "answer" in intents:
                    answered |= _slot_items(logged, "answer")
                continue
            if not with_acts:
                with_acts = "acts" in ev
            if logged and on_user is not None:
                on_user(ev)
            reaction_to = None
            if commit is not None:  # the user reacts to it: it went through
                reaction_to = place(commit[1], commit[2])
                commit = None
            append(new(utterance_type, (USER, intents, acts, reaction_to, ev)))
            if "inquire" in intents:
                asked |= _slot_items(logged, "inquire")
    if commit is not None:  # the log ends at the call: taken as made
        place(commit[1], commit[2])
    if not with_acts:
        return None
    return out, len(asked), len(asked - answered)


def note_dialogue(score: EpisodeScore, task: Any, trajectory: Trajectory, catalog: Catalog) -> None:
    """Add the dialogue metrics and the audit to `score` (the log's simulator named)."""
    score.simulator = trajectory.header.simulator.kind
    events = trajectory.events
    for ev in events:
        if ev["type"] == "user_message" and "acts" in ev:
            break
    else:
        return  # what dialogue_of answers with None, without building the utterances
    if hasattr(task, "constraints"):  # kinds without a user's constraints have nothing to audit
        on_user, faults = auditor(task, catalog)  # rides on dialogue_of's pass
        found = dialogue_of(events, on_user)
    else:
        found, faults = dialogue_of(events), []
    if found is None:
        return
    utterances, requests, unanswered = found
    metrics = score.metrics
    metrics.update(dialogue_metrics(utterances))
    metrics["requests"] = float(requests)
    metrics["requests_unanswered"] = float(unanswered)
    score.simulator_faults = faults


def dialogue_fields(scores: list[EpisodeScore]) -> dict[str, Any]:
    """A group's `dialogue` (the means of dialogue_metrics.KEYS over episodes with acts) and
    `simulator_faults` (fault rate per simulator, the faulty episodes listed)."""
    with_acts = [s for s in scores if "sr" in s.metrics]
    dialogue: dict[str, Any] = {
        "episodes": len(with_acts),
        **mean_metrics([s.metrics for s in with_acts]),
    }
    dialogue["requests"] = sum(int(s.metrics.get("requests", 0)) for s in with_acts)
    dialogue["requests_unanswered"] = sum(
        int(s.metrics.get("requests_unanswered", 0)) for s in with_acts
    )
    by_sim: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    listed = []
    for s in with_acts:
        tally = by_sim[s.simulator or "unknown"]
        tally[1] += 1
        if s.simulator_faults:
            tally[0] += 1
            listed.append(
                {
                    "path": s.path,
                    "episode_id": s.episode_id,
                    "task": s.task_id,
                    "trial": s.trial,
                    "simulator": s.simulator,
                    "passed": s.passed,
                    "faults": [asdict(f) for f in s.simulator_faults],
                }
            )
    faults = {
        "by_simulator": {
            sim: {"episodes": n, "faulty": bad, "rate": bad / n}
            for sim, (bad, n) in sorted(by_sim.items())
        },
        "episodes": listed,
    }
    return {"dialogue": dialogue, "simulator_faults": faults}


def dialogue_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    """Rows for the terminal table, after the kind's own."""
    d = group.get("dialogue")
    if not d or not d.get("episodes"):
        return []
    rows = [
        ("SR / SRRR / RDL", f"{_pct(d['sr'])} / {_pct(d['srrr'])} / {_pct(d['rdl'])}"),
        ("SRRR as UserSimCRS's code counts it", _pct(d.get("srrr_usersimcrs"))),
        ("avg turns (turn pairs) / utterances", f"{d['avg_turns']:.1f} / {d['utterances']:.1f}"),
    ]
    if d.get("requests"):
        rows.append(("requests unanswered", f"{d['requests_unanswered']} of {d['requests']}"))
    for sim, f in group["simulator_faults"]["by_simulator"].items():
        rows.append(
            (
                f"simulator faults: {sim}",
                f"{_pct(f['rate'])} ({f['faulty']} of {f['episodes']} episodes)",
            )
        )
    return rows


def fault_lines(groups: list[dict[str, Any]]) -> list[str]:
    """One line per fault of every listed episode: where the simulator was at fault."""
    lines = []
    for g in groups:
        for ep in g.get("simulator_faults", {}).get("episodes", []):
            for f in ep["faults"]:
                lines.append(
                    f"{g['label']}: {ep['task']} trial {ep['trial']} ({ep['simulator']}), "
                    f"seq {f['seq']}: {f['kind']}: {f['detail']}  [{ep['path']}]"
                )
    return lines
