"""Dialogue metrics, unanswered requests and the simulator-fault audit for any episode
whose log records dialogue acts: the hook `score_log` calls for every kind, the group
fields `aggregate` adds, and their rows in the reports.

The dialogue is the delivered messages of both sides, plus each committing `recommend`
call with an item (the agent's recommendation, which the user reacts to). A log whose
user messages carry no acts (an older log, another harness) gets no dialogue metrics.
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
    Utterance,
    dialogue_metrics,
    mean_metrics,
)
from taurec.evaluator.recommendation.simulator_audit import SimulatorFault, message_faults
from taurec.tasks.trajectory.format import Trajectory

_COMMIT = ("recommend",)


def _slot_items(acts: Iterable[dict[str, Any]], intent: str) -> set[tuple[str, str]]:
    """(slot, item id) of each act with this intent that names a slot (an answer without
    one can answer no request)."""
    return {
        (a["slot"], i)
        for a in acts
        if a["intent"] == intent and a.get("slot")
        for i in a.get("items") or ()
    }


def dialogue_of(
    events: Iterable[dict[str, Any]], on_user: Callable[[dict[str, Any]], None] | None = None
) -> tuple[list[Utterance], int, int] | None:
    """(utterances, requests asked, requests left unanswered), or None when no user
    message carries acts. A request is a user `inquire` about a slot of an item; an agent
    `answer` of that slot and item answers it. `on_user` sees each user message with
    acts (the audit rides on this one pass)."""
    out: list[Utterance] = []
    asked: set[tuple[str, str]] = set()
    answered: set[tuple[str, str]] = set()
    with_acts = False
    for ev in events:
        kind = ev["type"]
        if kind == "user_message":
            acts = ev.get("acts") or ()
            with_acts |= "acts" in ev
            if acts and on_user is not None:
                on_user(ev)
            intents = tuple(a["intent"] for a in acts)
            out.append(Utterance(USER, intents))
            if "inquire" in intents:
                asked |= _slot_items(acts, "inquire")
        elif kind == "agent_message" and ev.get("delivered", True):
            acts = ev.get("acts") or ()
            intents = tuple(a["intent"] for a in acts)
            out.append(Utterance(AGENT, intents))
            if "answer" in intents:
                answered |= _slot_items(acts, "answer")
        elif (
            kind == "tool_call"
            and ev["name"] in _COMMIT
            and (ev.get("arguments") or {}).get("item_id")
        ):
            out.append(Utterance(AGENT, ("recommend",)))
    if not with_acts:
        return None
    return out, len(asked), len(asked - answered)


def note_dialogue(score: EpisodeScore, task: Any, trajectory: Trajectory, catalog: Catalog) -> None:
    """Add the dialogue metrics and the audit to `score` (the log's simulator named)."""
    score.simulator = trajectory.header.simulator.kind
    faults: list[SimulatorFault] = []
    audited = None
    if hasattr(task, "constraints"):  # kinds without a user's constraints have nothing to audit

        def audited(ev: dict[str, Any]) -> None:
            faults.extend(message_faults(task, ev, catalog))

    found = dialogue_of(trajectory.events, audited)
    if found is None:
        return
    utterances, requests, unanswered = found
    score.metrics.update(dialogue_metrics(utterances))
    score.metrics["requests"] = float(requests)
    score.metrics["requests_unanswered"] = float(unanswered)
    score.simulator_faults = faults


def dialogue_fields(scores: list[EpisodeScore]) -> dict[str, Any]:
    """A group's `dialogue` (mean SR, SRRR, RDL, utterances over episodes with acts) and
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


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def dialogue_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    """Rows for the terminal table, after the kind's own."""
    d = group.get("dialogue")
    if not d or not d.get("episodes"):
        return []
    rows = [
        ("SR / SRRR / RDL", f"{_pct(d['sr'])} / {_pct(d['srrr'])} / {_pct(d['rdl'])}"),
        ("avg turns (utterances)", f"{d['utterances']:.1f}"),
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
