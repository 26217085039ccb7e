"""What the model calls behind each episode took, whatever its kind: calls, tokens in and
out, and cost, per caller (the agent; the simulated user or customer; the NLU), summed
per agent label. From the log's `model_call` events; an episode without any of the
agent's falls back on its end record's `usage` (the agent's own running total, as logs
written before model calls were logged, and other harnesses, report it). Never part of a
verdict.

The agent's numbers are its own word: its client sends the records (request `_meta`),
nothing checks them against a provider's bill, and a contestant may report 0 for 50
calls. They are shown and written as reported (`reported_by: "agent"`); the simulated
user's and the NLU's are the server's own calls (`reported_by: "server"`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from taurec.evaluator.episode import EpisodeScore
from taurec.tasks.trajectory.payloads import is_null

#: Callers in the order reports list them, with the name they are shown under.
CALLERS: Final = {"agent": "agent", "user": "simulated user", "nlu": "NLU"}
#: Where a caller's numbers came from.
FROM_EVENTS: Final = "model_call events"
FROM_END: Final = "end records"
#: Whose word the numbers of a caller are: the agent's own calls are what it reports.
SELF_REPORTED: Final = frozenset({"agent"})
#: What a self-reported figure is shown with.
REPORTED_NOTE: Final = "reported by the agent"


def _is_call(event: dict[str, Any]) -> bool:
    """A model call, not a note the server wrote in place of one (a refused record)."""
    return any(not is_null(event.get(name)) for name in ("input", "output", "usage"))


def episode_usage(events: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """caller -> {calls, prompt_tokens, completion_tokens, cost_usd, source}: the sums of
    one log's model calls (cost None when no call of the caller was priced), the agent's
    from the end record's usage when it logged no call."""
    out: dict[str, dict[str, Any]] = {}
    end = None
    for ev in events:  # one type test per event: most events are not model calls
        kind = ev["type"]
        if kind != "model_call":
            if kind == "end":
                end = ev
            continue
        if not _is_call(ev):
            continue
        sums = out.setdefault(ev["caller"], _empty(FROM_EVENTS))
        sums["calls"] += 1
        usage = ev.get("usage") or {}
        sums["prompt_tokens"] += usage.get("prompt_tokens") or 0
        sums["completion_tokens"] += usage.get("completion_tokens") or 0
        if usage.get("cost_usd") is not None:
            sums["cost_usd"] = (sums["cost_usd"] or 0.0) + usage["cost_usd"]
    reported = (end or {}).get("usage")
    if "agent" not in out and reported:
        sums = _empty(FROM_END)
        sums["calls"] = None  # an end record counts tokens, not calls
        sums["prompt_tokens"] = reported.get("prompt_tokens") or 0
        sums["completion_tokens"] = reported.get("completion_tokens") or 0
        sums["cost_usd"] = reported.get("cost_usd")
        out["agent"] = sums
    return out


def _empty(source: str) -> dict[str, Any]:
    return {
        "calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost_usd": None,
        "source": source,
    }


def note_model_usage(score: EpisodeScore, events: Iterable[dict[str, Any]]) -> None:
    """Fill `score.model_usage`, and the agent's tokens and cost from it."""
    score.model_usage = episode_usage(events)
    agent = score.model_usage.get("agent")
    if agent is not None:
        score.prompt_tokens = agent["prompt_tokens"]
        score.completion_tokens = agent["completion_tokens"]
        score.cost_usd = agent["cost_usd"]


def usage_fields(scores: Iterable[EpisodeScore]) -> dict[str, Any]:
    """A group's `model_usage`: per caller, its calls, tokens and cost over the group's
    episodes, how many episodes had any, and where the numbers came from."""
    totals: dict[str, dict[str, Any]] = {}
    for score in scores:
        for caller, sums in (score.model_usage or {}).items():
            total = totals.setdefault(caller, {**_empty(""), "episodes": 0, "sources": set()})
            total["episodes"] += 1
            total["sources"].add(sums["source"])
            if sums["calls"] is not None:
                total["calls"] += sums["calls"]
            total["prompt_tokens"] += sums["prompt_tokens"]
            total["completion_tokens"] += sums["completion_tokens"]
            if sums["cost_usd"] is not None:
                total["cost_usd"] = (total["cost_usd"] or 0.0) + sums["cost_usd"]
    order = [c for c in CALLERS if c in totals] + sorted(set(totals) - set(CALLERS))
    out = {}
    for caller in order:
        total = totals[caller]
        total["source"] = " and ".join(sorted(total.pop("sources")))
        total["reported_by"] = "agent" if caller in SELF_REPORTED else "server"
        out[caller] = total
    return {"model_usage": out}


def usage_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    """The table rows of a group's `model_usage` (none when no model was called)."""
    rows = []
    for caller, total in (group.get("model_usage") or {}).items():
        name = CALLERS.get(caller, caller)
        note = f", {REPORTED_NOTE}" if caller in SELF_REPORTED else ""
        calls = f"{total['calls']:,}" if FROM_EVENTS in total["source"] else "-"
        rows.append((f"{name} model calls", f"{calls} ({total['source']}{note})"))
        tokens = f"{total['prompt_tokens']:,} / {total['completion_tokens']:,}"
        rows.append((f"{name} tokens in / out", tokens + (f" ({REPORTED_NOTE})" if note else "")))
        cost = total["cost_usd"]
        shown = "- (no price known)" if cost is None else f"{cost:.4f}"
        if cost is not None and note:
            shown += f" ({REPORTED_NOTE})"
        rows.append((f"{name} cost (USD)", shown))
    return rows
