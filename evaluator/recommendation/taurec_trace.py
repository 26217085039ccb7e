"""An episode log as τ-Rec v1.0's `ConversationTrace`, and a task as τ-Rec's `Task`.

τ-Rec's evaluator reads a trace of message and tool-call events, the list of recommended
ids and a stop reason. `to_trace` derives that from one of our logs, as τ-Rec's
orchestrator would have recorded the same conversation:

- the trace ends at the first `recommend` call, whatever its id (τ-Rec ends the trial
  there): a truthy `item_id` is a recommendation (stop reason "recommended"), anything
  else (null, "", absent) an abstention ("abstained"); with no `recommend` call the stop
  reason is "timeout" (τ-Rec's only other end). Our logs do not mark which calls one model
  response batched, so calls after the first `recommend` are not part of the trace;
- the recommend call's `message` follows it as an agent message (τ-Rec records the text
  of the committing response after its tool calls); asides sent alongside other tool
  calls were never delivered and are dropped, as τ-Rec drops them;
- tool names and arguments are τ-Rec's: `get_item` is `get_metadata`; `episode_id` is
  dropped; a `check_content_preference` call by item carries the rating its result says
  was checked; results are JSON strings, errors `{"error": ...}`, and a history lookup
  lists `watched` as `[{"id", "title"}]` with `ratings` by id.

The models mirror τ-Rec's field names, so `model_dump()` validates as τ-Rec's own
`ConversationTrace` and `Task` (the differential tests and the speed bench do that).
"""

from __future__ import annotations

from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, Field

from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import Trajectory

StopReason = Literal["recommended", "abstained", "timeout"]
RECOMMENDED: Final = "recommended"
ABSTAINED: Final = "abstained"
TIMEOUT: Final = "timeout"
#: Our tool names that τ-Rec spells differently.
TOOL_NAMES = {"get_item": "get_metadata"}
#: Harness calls that are no part of the conversation τ-Rec would have recorded.
HARNESS_TOOLS = frozenset({"abort_episode", "start_episode"})


class TraceMessage(BaseModel):
    type: Literal["message"] = "message"
    role: Literal["agent", "user"]
    content: str


class TraceToolCall(BaseModel):
    type: Literal["tool_call"] = "tool_call"
    name: str
    arguments: dict[str, Any]
    result: str


class Trace(BaseModel):
    """τ-Rec's ConversationTrace, field for field (latencies left empty)."""

    task_id: str
    model: str
    trial: int
    events: list[TraceMessage | TraceToolCall] = Field(default_factory=list)
    recommendations: list[str] = Field(default_factory=list)
    stop_reason: StopReason | None = None

    @property
    def tool_calls(self) -> list[TraceToolCall]:
        return [e for e in self.events if isinstance(e, TraceToolCall)]

    @property
    def agent_messages(self) -> list[str]:
        return [e.content for e in self.events if isinstance(e, TraceMessage) and e.role == "agent"]


def _json(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value, default=str).decode()


def _result(name: str, result: dict[str, Any] | None) -> str:
    if result is None:
        return _json({"error": "no result was logged"})
    content = result.get("content")
    if result.get("is_error"):
        return _json({"error": content if isinstance(content, str) else _json(content)})
    if name == "get_user_history" and isinstance(content, dict):
        watched = [w for w in content.get("watched") or [] if isinstance(w, dict)]
        return _json(
            {
                "user_id": content.get("user_id"),
                "watched": [{"id": w.get("item_id"), "title": w.get("title")} for w in watched],
                "ratings": {
                    w.get("item_id"): w["rating"] for w in watched if w.get("rating") is not None
                },
            }
        )
    return _json(content)


def _arguments(name: str, args: dict[str, Any], result: dict[str, Any] | None) -> dict[str, Any]:
    out = {k: v for k, v in args.items() if k != "episode_id"}
    if name == "check_content_preference" and "content_rating" not in out:
        content = result.get("content") if result and not result.get("is_error") else None
        if isinstance(content, dict) and isinstance(content.get("content_rating"), str):
            out["content_rating"] = content["content_rating"]
    return out


def to_trace(trajectory: Trajectory) -> Trace:
    """The trace τ-Rec would have recorded for this episode (see the module docstring)."""
    header = trajectory.header
    trace = Trace(task_id=header.task_id, model=header.agent.label, trial=header.trial)
    results: dict[str, dict[str, Any]] = {}
    for ev in trajectory.events:
        if ev["type"] == "tool_result":
            results.setdefault(ev["call_id"], ev)
    events = trace.events
    for ev in trajectory.events:
        kind = ev["type"]
        if kind == "user_message":
            events.append(TraceMessage(role="user", content=ev["text"]))
        elif kind == "agent_message" and ev.get("delivered", True):
            events.append(TraceMessage(role="agent", content=ev["text"]))
        elif kind == "tool_call" and ev["name"] not in HARNESS_TOOLS:
            name, args = ev["name"], ev.get("arguments") or {}
            result = results.get(ev["call_id"])
            events.append(
                TraceToolCall(
                    name=TOOL_NAMES.get(name, name),
                    arguments=_arguments(name, args, result),
                    result=_result(name, result),
                )
            )
            if name == "recommend":
                item = args.get("item_id")
                if item:
                    trace.recommendations.append(_json(item))
                trace.stop_reason = RECOMMENDED if item else ABSTAINED
                message = args.get("message")
                if isinstance(message, str) and message:
                    events.append(TraceMessage(role="agent", content=message))
                return trace
    trace.stop_reason = TIMEOUT
    return trace


def to_task(task: RecommendationTask) -> dict[str, Any]:
    """`task` as a τ-Rec Task document (constraints, flags, services, history)."""
    user = task.user
    return {
        "id": task.id,
        "constraints": [
            {
                "constraint": {"field": c.field, "op": c.op.value, "value": c.value},
                "reveal": c.reveal.value,
            }
            for c in task.constraints
        ],
        "persona": task.persona,
        "soft_preferences": list(task.soft_preferences),
        "policy_flags": [p.value for p in task.policy_flags],
        "no_valid_recommendation": task.no_valid_recommendation,
        "complexity": task.stratum[0].value,
        "reveal_difficulty": task.stratum[1].value,
        "user_id": user.user_id,
        "user_history": {
            user.user_id: {
                "watched": [w.item_id for w in user.watch_history],
                "ratings": {w.item_id: w.rating for w in user.watch_history if w.rating},
            }
        },
        "user_services": list(user.services),
    }
