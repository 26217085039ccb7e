"""An episode log as τ-Rec v1.0's `ConversationTrace`, and a task as τ-Rec's `Task`.

τ-Rec's evaluator reads a trace of message and tool-call events, the list of recommended
ids and a stop reason. `to_trace` derives that from one of our logs, as τ-Rec's
orchestrator would have recorded the same conversation. Its orchestrator runs every tool
call of one model response (even after a `recommend`), records each, ends the trial after
a response that called `recommend`, and records that response's text after its calls.
So:

- the committing response is the model response of the first `recommend` call, whatever
  its id: every call logged with that call's batch (`tool_call.batch`, as the client
  named it); for a call of no batch, the calls the server logged as having come while it
  ran (batch `concurrent:<its call id>`), or the `recommend` call alone. The trace holds
  them all, in order, and ends there;
- each `recommend` of that response with a truthy `item_id` is a recommendation; the
  stop reason is the last one's: "recommended" for a truthy id, "abstained" otherwise
  (null, "", absent). Without a `recommend` call it is "timeout" (τ-Rec's only other end);
- calls of that response that came after the commit were refused by our server (the
  episode had ended); τ-Rec ran them, so with the task and catalog at hand the read-only
  ones are replayed for their results (as replay.py does); other results stay as logged;
- the committing response's text follows its calls as one agent message: the asides
  logged with its calls (text sent beside a call, undelivered) joined with the message of
  each of its `recommend` calls, as the user was shown it (a structured disclosure's line
  included: policies/sponsorship.py). Asides sent with other responses were never delivered and
  are dropped, as τ-Rec drops them (its loop overwrites the text of a response whose
  calls it runs); messages and user replies logged after the commit are no part of it;
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

from taurec.catalog.store import Catalog
from taurec.policies.sponsorship import logged_message
from taurec.tasks.errors import AgentFacingError
from taurec.tasks.recommendation.catalog_tools import REPLAYERS, replay_call
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import CONCURRENT_BATCH, Trajectory
from taurec.tasks.trajectory.payloads import payload

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
    content = payload(result.get("content"))
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
        content = payload(result.get("content")) if result and not result.get("is_error") else None
        if isinstance(content, dict) and isinstance(content.get("content_rating"), str):
            out["content_rating"] = content["content_rating"]
    return out


def _committing(events: list[dict[str, Any]]) -> tuple[int | None, set[int]]:
    """The index of the first `recommend` call, and the indices of every call of its model
    response (the run of calls around it that carry its batch)."""
    calls = [i for i, e in enumerate(events) if _is_call(e)]
    first = next((i for i in calls if events[i]["name"] == "recommend"), None)
    if first is None:
        return None, set()
    batch = events[first].get("batch")
    at = calls.index(first)
    if batch is None:  # the calls that came while it ran, if any (batches.py)
        made = f"{CONCURRENT_BATCH}{events[first]['call_id']}"
        after = [i for i in calls[at + 1 :] if events[i].get("batch") == made]
        return first, {first, *after}
    lo, hi = at, at
    while lo > 0 and events[calls[lo - 1]].get("batch") == batch:
        lo -= 1
    while hi + 1 < len(calls) and events[calls[hi + 1]].get("batch") == batch:
        hi += 1
    return first, set(calls[lo : hi + 1])


def _is_call(ev: dict[str, Any]) -> bool:
    return ev["type"] == "tool_call" and ev["name"] not in HARNESS_TOOLS


def _replayed(
    name: str, args: dict[str, Any], task: RecommendationTask, catalog: Catalog
) -> dict[str, Any] | None:
    """The result a refused read-only call would have had (None: not replayable)."""
    if name not in REPLAYERS:
        return None
    try:
        return {"content": replay_call(catalog, task, name, args), "is_error": False}
    except (AgentFacingError, LookupError, ValueError) as exc:
        return {"content": str(exc), "is_error": True}


def to_trace(
    trajectory: Trajectory,
    task: RecommendationTask | None = None,
    catalog: Catalog | None = None,
) -> Trace:
    """The trace τ-Rec would have recorded for this episode (see the module docstring).
    Without `task` and `catalog`, refused calls after the commit keep their refusals."""
    header = trajectory.header
    trace = Trace(task_id=header.task_id, model=header.agent.label, trial=header.trial)
    evs = trajectory.events
    results: dict[str, dict[str, Any]] = {}
    for ev in evs:
        if ev["type"] == "tool_result":
            results.setdefault(ev["call_id"], ev)
    first, response = _committing(evs)
    asides: list[str] = []
    for i, ev in enumerate(evs):
        kind = ev["type"]
        if first is not None and i > max(response):
            break
        if kind == "agent_message" and not ev.get("delivered", True):
            if i + 1 in response:  # sent with a call of the committing response
                asides.append(ev["text"])
            continue
        if first is not None and i > first and i not in response:
            continue  # after the commit only the response's own calls count
        if kind == "user_message":
            trace.events.append(TraceMessage(role="user", content=ev["text"]))
        elif kind == "agent_message":
            trace.events.append(TraceMessage(role="agent", content=ev["text"]))
        elif _is_call(ev):
            name, args = ev["name"], ev.get("arguments") or {}
            result = results.get(ev["call_id"])
            after = first is not None and i > first and result and result.get("refused")
            if after and task is not None and catalog is not None:
                result = _replayed(name, args, task, catalog) or result
            trace.events.append(
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
    if first is None:
        trace.stop_reason = TIMEOUT
        return trace
    messages = [
        logged_message(
            evs[i].get("arguments") or {},
            payload((results.get(evs[i]["call_id"]) or {}).get("content")),
        )
        for i in sorted(response)
        if evs[i]["name"] == "recommend"
    ]
    text = "\n".join([*asides, *(m for m in messages if m)])
    if text:
        trace.events.append(TraceMessage(role="agent", content=text))
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
