"""An episode log as a conversation: the user's and the agent's messages in order, each
tool call folded together with its result, each model call (model_calls.py), and the end
record (with the agent's traceback, when it raised). What `evaluator explain`
prints and the viewer shows. Pure: events in, plain JSON values out.
"""

from __future__ import annotations

from typing import Any

from taurec.evaluator.episodes.model_calls import model_entry
from taurec.tasks.trajectory.payloads import payload
from taurec.tasks.trajectory.secrets import scrub, scrub_optional

#: Roles of conversation entries.
USER, AGENT, TOOL, END = "user", "agent", "tool", "end"


def _message(ev: dict[str, Any], role: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"seq": ev["seq"], "role": role, "text": str(ev.get("text", ""))}
    if ev.get("acts"):
        entry["acts"] = ev["acts"]
        entry["acts_by"] = ev.get("acts_by")
    if role == AGENT and ev.get("delivered") is False:
        entry["delivered"] = False
    if role == USER and ev.get("left"):
        entry["left"] = True
    return entry


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None


def _took_ms(result: dict[str, Any], called_at: Any) -> float | None:
    """How long a tool call took, in ms: its result's logged latency, else the time
    between the call and its result in the log."""
    latency = _number(result.get("latency_ms"))
    if latency is not None:
        return latency
    start, end = _number(called_at), _number(result.get("t"))
    return None if start is None or end is None else max(end - start, 0.0) * 1000


def conversation(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per message, tool call (its result inside, under `result`) and end
    record, in log order. Every entry has `seq` and `role`; a tool entry's result keeps
    its own `seq` and how long the call took (`ms`, None when the log cannot say). A result whose call is not logged gets an entry of its own."""
    entries: list[dict[str, Any]] = []
    pending: dict[str, dict[str, Any]] = {}  # call_id -> the tool entry awaiting its result
    started: dict[str, Any] = {}  # call_id -> when the call was logged (seconds)
    for ev in events:
        kind = ev.get("type")
        if kind == "user_message":
            entries.append(_message(ev, USER))
        elif kind == "agent_message":
            entries.append(_message(ev, AGENT))
        elif kind == "tool_call":
            entry = {
                "seq": ev["seq"],
                "role": TOOL,
                "name": str(ev.get("name", "")),
                "arguments": {
                    k: v for k, v in (ev.get("arguments") or {}).items() if k != "episode_id"
                },
                "result": None,
            }
            entries.append(entry)
            pending[str(ev.get("call_id"))] = entry
            started[str(ev.get("call_id"))] = ev.get("t")
        elif kind == "tool_result":
            result = {
                "seq": ev["seq"],
                "is_error": bool(ev.get("is_error", False)),
                "content": payload(ev.get("content")),
                "ms": _took_ms(ev, started.pop(str(ev.get("call_id")), None)),
            }
            call = pending.pop(str(ev.get("call_id")), None)
            if call is None:
                entries.append(
                    {"seq": ev["seq"], "role": TOOL, "name": "?", "arguments": {}, "result": result}
                )
            else:
                call["result"] = result
        elif kind == "model_call":
            entries.append(model_entry(ev))
        elif kind == "end":
            end = {
                "seq": ev["seq"],
                "role": END,
                "reason": str(ev.get("reason", "")),
                "item_id": ev.get("item_id"),
                "detail": scrub_optional(ev.get("detail")),
            }
            if ev.get("traceback"):  # the agent's, when its harness aborted after it raised
                end["traceback"] = scrub(str(ev["traceback"]))
            entries.append(end)
    return entries


def entry_seqs(entry: dict[str, Any]) -> list[int]:
    """The log seqs an entry shows (a tool call's and its result's)."""
    result = entry.get("result")
    return [entry["seq"]] + ([result["seq"]] if result else [])
