"""Replay: re-execute an episode's logged read-only calls and compare with the log.

The catalog tools are pure functions of (catalog, task, arguments), so what the agent saw
can be recomputed. A difference means the catalog changed since the run (drift) or the
log was edited; either way it is reported per episode, never silently accepted.
"""

from __future__ import annotations

from typing import Any

import orjson

from taurec.catalog.store import Catalog
from taurec.tasks.errors import AgentFacingError
from taurec.tasks.recommendation.catalog_tools import REPLAYERS, replay_call
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import Trajectory

_MISSING = object()


def _canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


#: Tools whose answer depends on the episode's user: on the whole task, or (availability)
#: only on the user's services, so every task with the same services shares its results.
_TASK_TOOLS = frozenset({"get_user_history", "check_content_preference"})


def _scope(task: RecommendationTask, name: str) -> object:
    """What besides the arguments a tool's result depends on (the catalog aside)."""
    if name in _TASK_TOOLS:
        return task.id
    if name == "check_availability":
        return tuple(task.user.services)
    return ""


class Replayer:
    """Replays calls against one catalog, remembering results: agents repeat queries, and
    one suite's episodes share most of them. The cache key includes what else the answer
    depends on: the task, or the user's services (`_scope`)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._cache: dict[tuple[object, str, bytes], Any] = {}  # result, None, or the exception

    def expected(self, task: RecommendationTask, name: str, arguments: dict[str, Any]) -> Any:
        """The result (JSON value) the call must have returned; None if not replayable.
        Raises what the call raises for bad arguments."""
        # the episode id addresses the episode; results depend on the task, which the key holds
        args = arguments
        if "episode_id" in args:
            args = {k: v for k, v in arguments.items() if k != "episode_id"}
        key = (_scope(task, name), name, _canonical(args))
        hit = self._cache.get(key, _MISSING)
        if hit is _MISSING:
            try:
                hit = replay_call(self.catalog, task, name, arguments)
            except (AgentFacingError, LookupError, ValueError) as exc:
                hit = exc
            self._cache[key] = hit
        if isinstance(hit, Exception):
            raise hit
        return hit

    def mismatches(self, trajectory: Trajectory, task: RecommendationTask) -> list[str]:
        """One message per logged read-only call whose result the catalog does not reproduce."""
        calls: dict[str, dict[str, Any] | None] = {}  # call_id -> its call, until answered
        problems: list[str] = []
        for ev in trajectory.events:
            kind = ev["type"]
            if kind == "tool_call":
                if calls.get(ev["call_id"]) is None:  # a call id reused once answered: new call
                    calls[ev["call_id"]] = ev
            elif kind == "tool_result":
                call = calls.get(ev["call_id"])
                if call is None:
                    continue  # a result without a pending call: nothing to compare it with
                calls[ev["call_id"]] = None
                if call["name"] not in REPLAYERS:
                    continue  # not a read-only tool: nothing to recompute
                problem = self._check(task, call, ev)
                if problem is not None:
                    problems.append(problem)
        return problems

    def _check(
        self, task: RecommendationTask, call: dict[str, Any], logged: dict[str, Any]
    ) -> str | None:
        name, seq = call["name"], logged["seq"]
        is_error = logged.get("is_error", False)
        if is_error and logged.get("refused", False):
            # refused before the tool ran (a server limit, say): nothing to recompute.
            # Marking a call refused only ever hides a result from the agent's own credit.
            return None
        try:
            expected = self.expected(task, name, call.get("arguments", {}))
        except (AgentFacingError, LookupError, ValueError):
            if not is_error:
                return f"seq {seq}: {name} fails on replay, but the log shows a result"
            return None
        if is_error:
            return f"seq {seq}: {name} succeeds on replay, but the log shows an error"
        if expected != logged.get("content"):  # deep equality of the JSON values
            return (
                f"seq {seq}: {name} result differs from what the catalog returns "
                "(catalog drift or an edited log)"
            )
        return None
