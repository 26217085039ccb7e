"""One stream in progress on the server: its rules (a StreamSession) and its log.

Each call is logged as a tool call with exactly the result the agent gets, under the
stream's lock and shielded from cancellation; the stream's last recommendation ends it
(`recommended`, the end record naming that item), an abort ends it as the harness says,
and a failure inside the rules ends it as `infra_error`. Calls are capped per shopping
episode (`max_calls`, the server's max_tool_calls_per_episode; abort_episode is never
refused): the call past it is logged with its error, refused, and ends the stream as
`agent_error` ("tool-call limit: ..."). A stream of E episodes logs at most E times the
cap calls, each argument capped by the tool schemas. Its log is capped too
(`max_log_bytes`, the server's max_stream_log_bytes): the first call once the log has
reached it is refused the same way and ends the stream ("log limit: ..."), so a stream's
log stays within the cap plus one call's records.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import anyio
from pydantic import BaseModel

from taurec.server.defaults import MAX_STREAM_LOG_BYTES, MAX_TOOL_CALLS_PER_EPISODE
from taurec.server.episode_end import (
    ABORT_REASONS,
    ABORTED,
    CALL_LIMIT,
    LOG_LIMIT,
    EpisodeEnd,
    ended_message,
)
from taurec.server.model_call_log import capturing
from taurec.server.trajectory_writer import TrajectoryWriter
from taurec.tasks.errors import ArgumentError, EpisodeError, agent_error_text, short_repr
from taurec.tasks.stream.session import StreamRuleError, StreamSession
from taurec.tasks.trajectory.format import EndReason

log = logging.getLogger(__name__)

#: The call whose answer carries the customer's feedback.
RECOMMEND = "recommend_item"


class StreamEpisode:
    """One stream in progress: its rules (a StreamSession) and its log."""

    def __init__(
        self,
        episode_id: str,
        session: StreamSession,
        writer: TrajectoryWriter,
        trial: int,
        on_end: Callable[[StreamEpisode], None],
        max_calls: int = MAX_TOOL_CALLS_PER_EPISODE,
        sealed: bool = False,
        max_log_bytes: int = MAX_STREAM_LOG_BYTES,
    ) -> None:
        """`sealed`: it plays a sealed run's planned (task, trial)."""
        self.id = episode_id
        self.sealed = sealed
        self.session = session
        self.task = session.task
        self.trial = trial
        self.lock = anyio.Lock()
        self.end: EpisodeEnd | None = None
        self._log = writer
        self._calls = 0
        self._on_end = on_end
        self._max_calls = max_calls
        self._max_log_bytes = max_log_bytes
        self._counted_in = 0  # the shopping episode (session.index) `_episode_calls` counts
        self._episode_calls = 0
        self._feedback_seen = False

    @property
    def revealed(self) -> bool:
        """Whether the contestant has seen feedback: a recommendation of theirs answered."""
        return self._feedback_seen

    @property
    def log_path(self) -> Any:
        return self._log.path

    @property
    def log_chain(self) -> str:
        """The chain hash of the log's last line on disk (the run register records it)."""
        return self._log.chain

    def check_open(self) -> None:
        if self.end is not None:
            raise EpisodeError(ended_message(self.id, self.end))

    async def call(
        self, name: str, arguments: dict[str, Any], compute: Callable[[], BaseModel]
    ) -> BaseModel:
        """Log the call, run it under the stream's rules, log exactly what the agent gets;
        the stream's last recommendation ends it."""
        self.check_open()
        if self.session.index != self._counted_in:
            self._counted_in, self._episode_calls = self.session.index, 0
        if self._episode_calls >= self._max_calls:
            raise await self._end_at_call_limit(name, arguments)
        if self._log.size >= self._max_log_bytes:
            raise await self._end_at_log_limit(name, arguments)
        self._episode_calls += 1
        with anyio.CancelScope(shield=True):
            self._calls += 1
            call_id = f"call_{self._calls}"
            self._log.tool_call(call_id, name, {"episode_id": self.id, **arguments})
            t0 = time.perf_counter()
            try:  # in a worker thread: an LLM customer blocks on its provider
                with capturing(self._log):  # its model calls go to this log
                    result = await anyio.to_thread.run_sync(compute)
            except StreamRuleError as exc:
                text = agent_error_text(name, str(exc))
                self._log.tool_result(call_id, text, is_error=True, latency_ms=_ms(t0))
                raise EpisodeError(str(exc)) from None
            except Exception as exc:
                log.error("stream %s: %s failed", self.id[:8], name, exc_info=exc)
                self._log.tool_result(
                    call_id,
                    agent_error_text(name, "internal server error"),
                    is_error=True,
                    latency_ms=_ms(t0),
                )
                await self.close(EpisodeEnd(EndReason.INFRA_ERROR, detail=f"{name}: {exc}"))
                raise EpisodeError(
                    f"internal server error in {name}; the stream has ended (infra_error), "
                    "an infrastructure failure, not yours"
                ) from exc
            self._log.tool_result(
                call_id, result.model_dump(mode="json"), is_error=False, latency_ms=_ms(t0)
            )
            self._feedback_seen |= name == RECOMMEND
            if self.session.complete:
                n = len(self.task.episodes)
                await self.close(
                    EpisodeEnd(
                        EndReason.RECOMMENDED,
                        item_id=self.session.chosen[-1],
                        detail=f"stream complete: {n} of {n} episodes",
                    )
                )
        return result

    async def _end_at_call_limit(self, name: str, arguments: dict[str, Any]) -> EpisodeError:
        """Refuse the call past the cap: log it with its error, end the stream
        (agent_error), and return the error to raise."""
        limit, episode = self._max_calls, self.session.index + 1
        message = (
            f"stream {self.id[:8]}... has ended (agent_error): it reached this server's limit "
            f"of {limit} tool calls per episode (max_tool_calls_per_episode) in episode "
            f"{episode}, so this {name} call was not run. Call start_stream to begin again."
        )
        detail = (
            f"{CALL_LIMIT}{limit} tool calls made in episode {episode} of "
            f"{len(self.task.episodes)}; call {limit + 1} ({name}) refused"
        )
        return await self._refuse_and_end(name, arguments, message, detail)

    async def _end_at_log_limit(self, name: str, arguments: dict[str, Any]) -> EpisodeError:
        """Refuse a call once the log has reached its cap; as `_end_at_call_limit`."""
        limit, episode = self._max_log_bytes, self.session.index + 1
        message = (
            f"stream {self.id[:8]}... has ended (agent_error): its log reached this server's "
            f"limit of {limit:,} bytes per stream (max_stream_log_bytes) in episode {episode}, "
            f"so this {name} call was not run. Call start_stream to begin again."
        )
        detail = (
            f"{LOG_LIMIT}the log reached {self._log.size:,} bytes (limit {limit:,}) in episode "
            f"{episode} of {len(self.task.episodes)}; the next call ({name}) refused"
        )
        return await self._refuse_and_end(name, arguments, message, detail)

    async def _refuse_and_end(
        self, name: str, arguments: dict[str, Any], message: str, detail: str
    ) -> EpisodeError:
        with anyio.CancelScope(shield=True):
            self._calls += 1
            call_id = f"call_{self._calls}"
            self._log.tool_call(call_id, name, {"episode_id": self.id, **arguments})
            text = agent_error_text(name, message)
            self._log.tool_result(call_id, text, is_error=True, latency_ms=0.0, refused=True)
            await self.close(EpisodeEnd(EndReason.AGENT_ERROR, detail=detail))
        return EpisodeError(message)

    async def abort(self, reason: EndReason, detail: str | None) -> None:
        self.check_open()
        if reason not in ABORT_REASONS:
            raise ArgumentError(
                "reason", f"expected agent_error or infra_error, got {short_repr(reason)}"
            )
        with anyio.CancelScope(shield=True):
            self._calls += 1
            call_id = f"call_{self._calls}"
            arguments = {"episode_id": self.id, "reason": reason.value, "detail": detail}
            self._log.tool_call(call_id, "abort_episode", arguments)
            self._log.tool_result(
                call_id, {"ended": True, "end_reason": reason.value}, is_error=False, latency_ms=0.0
            )
            played = len(self.session.chosen)
            note = f" (after {played} of {len(self.task.episodes)} episodes)"
            await self.close(
                EpisodeEnd(reason, detail=ABORTED + (detail or "no detail given") + note)
            )

    @property
    def ended(self) -> bool:
        return self.end is not None

    async def expire(self, end: EpisodeEnd) -> None:
        """The idle sweep's end (open_limits.expire_idle)."""
        await self.close(end)

    async def close(self, end: EpisodeEnd) -> None:
        if self.end is not None:
            return
        self.end = end
        stats = getattr(self.session.customer, "stats", None)  # an LLM customer's counters
        try:
            await self._log.end(
                end.reason,
                item_id=end.item_id,
                detail=end.detail,
                simulator=stats() if callable(stats) else None,
            )
        finally:
            self._on_end(self)


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000
