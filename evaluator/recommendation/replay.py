"""Replay: re-execute an episode's logged read-only calls and compare with the log.

The catalog tools are pure functions of (catalog, task, arguments), so what the agent saw
can be recomputed. A difference means the catalog changed since the run (drift) or the
log was edited; either way it is reported per episode, never silently accepted.
"""

from __future__ import annotations

from typing import Any

import msgspec
import orjson

from taurec.catalog.store import Catalog
from taurec.tasks.errors import AgentFacingError
from taurec.tasks.recommendation.catalog_tools import READ_ONLY_TOOLS, replay_call
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import Trajectory
from taurec.tasks.trajectory.payloads import payload

_SORTED = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def same_json(expected: Any, logged: Any) -> bool:
    """Deep equality of two JSON values, `logged` perhaps kept as bytes (payloads.py): the
    bytes orjson writes for `expected` (as the server wrote the log) prove it equal
    without decoding; any other bytes are decoded and compared."""
    if type(logged) is msgspec.Raw:
        try:
            if orjson.dumps(expected) == bytes(logged):
                return True
        except orjson.JSONEncodeError:
            pass
        logged = payload(logged)
    return bool(expected == logged)


def _canonical(arguments: dict[str, Any]) -> bytes:
    """The arguments as a cache key: sorted-key JSON without the episode id, which
    addresses the episode (results depend on the task, which the key's scope holds)."""
    if "episode_id" in arguments:
        arguments = dict(arguments)
        del arguments["episode_id"]
    return orjson.dumps(arguments, option=_SORTED)


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
        # (scope, tool, canonical arguments) -> (True, result) or (False, the exception)
        self._cache: dict[tuple[object, str, bytes], tuple[bool, Any]] = {}

    def _replay(
        self,
        key: tuple[object, str, bytes],
        task: RecommendationTask,
        name: str,
        arguments: dict[str, Any],
    ) -> tuple[bool, Any]:
        try:
            hit: tuple[bool, Any] = (True, replay_call(self.catalog, task, name, arguments))
        except (AgentFacingError, LookupError, ValueError) as exc:
            hit = (False, exc)
        self._cache[key] = hit
        return hit

    def expected(self, task: RecommendationTask, name: str, arguments: dict[str, Any]) -> Any:
        """The result (JSON value) the call must have returned; None if not replayable.
        Raises what the call raises for bad arguments."""
        ok, value = self._lookup(task, name, arguments)
        if not ok:
            raise value
        return value

    def _lookup(
        self, task: RecommendationTask, name: str, arguments: dict[str, Any]
    ) -> tuple[bool, Any]:
        """(True, the result) or (False, the exception), replayed once per cache key."""
        key = (_scope(task, name), name, _canonical(arguments))
        return self._cache.get(key) or self._replay(key, task, name, arguments)

    def mismatches(self, trajectory: Trajectory, task: RecommendationTask) -> list[str]:
        """One message per logged read-only call whose result the catalog does not reproduce."""
        calls: dict[str, dict[str, Any] | None] = {}  # call_id -> its call, until answered
        problems: list[str] = []
        for ev in trajectory.events:  # one pass; only read-only results are looked up
            kind = ev["type"]
            if kind == "tool_call":
                call_id = ev["call_id"]
                if calls.get(call_id) is None:  # a call id reused once answered: new call
                    calls[call_id] = ev
                continue
            if kind != "tool_result":
                continue
            call_id = ev["call_id"]
            call = calls.get(call_id)
            if call is None:
                continue  # a result without a pending call: nothing to compare it with
            calls[call_id] = None
            name = call["name"]
            if name not in READ_ONLY_TOOLS:
                continue  # not a read-only tool: nothing to recompute
            is_error = ev.get("is_error", False)
            if is_error and ev.get("refused", False):
                # refused before the tool ran (a server limit, say): nothing to recompute.
                # Marking a call refused only ever hides a result from the agent's own credit.
                continue
            ok, expected = self._lookup(task, name, call.get("arguments", {}))
            if not ok:
                if not is_error:
                    problems.append(
                        f"seq {ev['seq']}: {name} fails on replay, but the log shows a result"
                    )
            elif is_error:
                problems.append(
                    f"seq {ev['seq']}: {name} succeeds on replay, but the log shows an error"
                )
            elif not same_json(expected, ev.get("content")):
                problems.append(
                    f"seq {ev['seq']}: {name} result differs from what the catalog returns "
                    "(catalog drift or an edited log)"
                )
        return problems
